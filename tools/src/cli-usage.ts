/** The CLI's help text (`--help`, and after a usage error). */
import { LIMIT_USAGE } from './desk';
export const USAGE = `usage: npm run -s cli -- <command> [flags]

commands
  sign-in                                      sign in; prints wallet, account, roles and the session token
  instruments [--asset SOL] [--expiry UNIX]    open instruments with their marks
  rfq create --leg SYMBOL:QTY [--leg ...]      open an RFQ (quantity signed, taker-buy orientation);
             [--wait SECONDS]                  waits for the quote (default 10, 0: do not wait)
             [--compete [--maker WALLET ...]]  competitive: several makers quote, you take one (--maker:
                                               your panel; none: every quoter); shows the quotes
  rfq quotes <rfq_id>                          a competitive RFQ's live quotes, the best bid and ask marked
  rfq transcript <rfq_id> [--verify]           the exchange-signed record of what a competitive RFQ was
                                               offered; --verify: against /v1/exchange/keys (exit 1: not)
  makers                                       the maker directory: names and last 7 days of each
  rfq list [--state STATE ...]                 your live RFQs, newest first
  rfq get <rfq_id>                             one RFQ, its quote (signature checked) and fill
  rfq cancel <rfq_id>                          withdraw a pending or quoted RFQ (it ends expired)
  rfq cancel-all                               withdraw every pending and quoted RFQ of yours
  accept <quote_id> --side buy|sell            accept one side of a quote (also a live one of a
                                               competitive RFQ), wait for filled or failed
             [--timeout SECONDS]               (default 60)
  positions [--status open|settled|all]        your net RFQ positions
  balances                                     your USDC balance
  fills                                        your fills, newest first, each receipt verified (as taker, with
                                               LEGWORK_SEED: that it commits to your wallet; keep taker_salt)
  maker limits [LIMIT FLAGS] [--replace]       a quoter's limits, usage and protection; with flags, sets
                                               them over those held (--replace: only those given)
  maker reset-protection                       lift a protection freeze that has no end
  maker quotes [--all]                         your live quotes (--all: every kept one), newest first
  verify-audit --head FILE [--admin-token T]   the admin audit log against a head saved earlier (exit 1: cut or rewritten)
  verify-journal                               walks the server's whole receipt journal (no sign-in):
                                               prints the head, or the first broken link (exit 1)
  verify-transcript FILE [--key BASE58]        checks a saved rfq.transcript result (no sign-in) with the
                                               exchange key, else LEGWORK_URL's /v1/exchange/keys (exit 1: not)
  backup --out FILE                            the running exchange's embedded database into a new FILE
             [--admin-token TOKEN]             (an admin command; env LEGWORK_ADMIN_TOKEN, or an admin --token)
  restore --in FILE --data-dir DIR             a new DATA_DIR from a backup (DIR absent or empty; offline:
             [--signing-key FILE]              no exchange involved), then DATA_DIR=DIR npm start

flags
  --url URL      exchange base URL        (env LEGWORK_URL, default http://127.0.0.1:3000)
  --seed HEX     wallet seed, 64 hex      (env LEGWORK_SEED; sign-in without one generates a wallet)
  --token JWT    session token to resume instead of signing in (env LEGWORK_TOKEN)
  --json         print the raw JSON results
  --no-cache     neither read nor write the session cache (~/.cache/legwork/sessions.json,
                 env LEGWORK_SESSION_CACHE): the server allows 10 sign-ins per minute per address

limit flags (maker limits)
${LIMIT_USAGE}`;
