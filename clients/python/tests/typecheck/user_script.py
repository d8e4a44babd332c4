"""A desk's script as a user writes it: it reads fields of results and events and must pass
``mypy --strict``; ``tests/test_types.py`` misspells one name at a time and expects mypy to refuse it."""

from __future__ import annotations

from decimal import Decimal

from legwork import Keypair, LegworkClient, Maker, RfqError, Taker


async def taker_side(client: LegworkClient, key: Keypair, symbol: str) -> str:
    session = await client.sign_in(key)
    print(session["account_id"], session["roles"])
    taker = Taker(client, key)
    events = await taker.subscribe()
    rfq = await taker.create([(symbol, "1")])
    print(rfq["rfq_id"], rfq["state"], rfq["expires_at"])
    async for n in events:
        if n["event"] == "quoted" and n["rfq"]["quote"] is not None:
            print(n["rfq"]["quote"]["ask"], n["account_seq"])
            accepted = await taker.accept(n["rfq"], "buy")
            return accepted["quote_id"]
    return ""


async def maker_side(client: LegworkClient, key: Keypair) -> None:
    maker = Maker(client, key)
    events = await maker.subscribe()
    config = await client.get_market_config()
    print(config["quote_domain"], [a["index_price"] for a in config["assets"]])
    async for n in events:
        if n["event"] == "protection":
            print(n["protection"]["until"])
        elif n["event"] == "created":
            try:
                sent = await maker.respond(n["rfq"], bid=Decimal("1.25"), ask=Decimal("1.50"))
                print(sent.result["quote_id"], sent.quote.quote_id)
            except RfqError as error:
                if error.reason == "kill_switch" or error.error == "RFQ_OPEN_LIMIT":
                    print(error.operation_id)
        elif n["event"] == "filled" and n["rfq"]["fill"] is not None:
            print(n["rfq"]["fill"]["price"])
    limits = await maker.get_limits()
    print(limits["usage"]["open_quotes"], await client.call("rfq.maker.get_limits", {}))
