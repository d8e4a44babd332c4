"""Wire types of the Legwork trading WebSocket, generated from the contract of @legwork/protocol.

Do not edit: `npm run protocol:python` writes this file, and a test fails when it differs from
the output. Decimals are strings on the wire, unix seconds integers; TypedDicts describe what the
server sends (results, events) and what it takes (params; NotRequired: absent is fine).
"""

from __future__ import annotations

from typing import Final, Literal, NotRequired, TypeAlias, TypedDict

MethodName: TypeAlias = Literal[
    "public/get_nonce",
    "public/auth",
    "public/session_resume",
    "public/get_market_config",
    "public/get_instruments",
    "public/get_time",
    "rfq.create",
    "rfq.accept",
    "rfq.cancel",
    "rfq.cancel_all",
    "rfq.get",
    "rfq.list",
    "rfq.subscribe",
    "rfq.transcript",
    "rfq.maker.poll",
    "rfq.maker.respond",
    "rfq.maker.decline",
    "rfq.maker.subscribe",
    "rfq.maker.cancel_quote",
    "rfq.maker.cancel_quotes",
    "rfq.maker.set_limits",
    "rfq.maker.get_limits",
    "rfq.maker.reset_protection",
    "rfq.maker.check",
    "rfq.maker.quotes",
    "rfq.maker.set_profile",
    "rfq.makers",
    "rfq.maker.stats",
]
METHOD_NAMES: Final[tuple[MethodName, ...]] = (
    "public/get_nonce",
    "public/auth",
    "public/session_resume",
    "public/get_market_config",
    "public/get_instruments",
    "public/get_time",
    "rfq.create",
    "rfq.accept",
    "rfq.cancel",
    "rfq.cancel_all",
    "rfq.get",
    "rfq.list",
    "rfq.subscribe",
    "rfq.transcript",
    "rfq.maker.poll",
    "rfq.maker.respond",
    "rfq.maker.decline",
    "rfq.maker.subscribe",
    "rfq.maker.cancel_quote",
    "rfq.maker.cancel_quotes",
    "rfq.maker.set_limits",
    "rfq.maker.get_limits",
    "rfq.maker.reset_protection",
    "rfq.maker.check",
    "rfq.maker.quotes",
    "rfq.maker.set_profile",
    "rfq.makers",
    "rfq.maker.stats",
)
RfqErrorCode: TypeAlias = Literal[
    "RFQ_NOT_ENABLED",
    "RFQ_NOT_READY",
    "RFQ_INVALID_INSTRUMENT",
    "RFQ_SIZE_INVALID",
    "RFQ_PRECISION_UNSUPPORTED",
    "RFQ_VALUE_OUT_OF_RANGE",
    "RFQ_OPEN_LIMIT",
    "RFQ_NOT_FOUND",
    "RFQ_WRONG_ROLE",
    "RFQ_INVALID_SIGNATURE",
    "RFQ_CANONICAL_MISMATCH",
    "RFQ_QUOTE_EXPIRED",
    "RFQ_STATE_CONFLICT",
    "RFQ_TAKER_UNFUNDED",
    "RFQ_BALANCE_INSUFFICIENT",
    "RFQ_PRICE_TOLERANCE",
    "RFQ_ATTESTATION_FAILED",
    "RFQ_TX_FAILED",
    "RFQ_RATE_LIMITED",
]
RpcErrorName: TypeAlias = Literal[
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "AUTH_REQUIRED",
    "AUTH_INVALID_SIGNATURE",
    "AUTH_INVALID_NONCE",
    "SESSION_INVALID",
    "RATE_LIMITED",
]
DeclineReason: TypeAlias = Literal[
    "unlisted_instrument",
    "near_expiry",
    "size_limit",
    "stale_data",
    "low_confidence",
    "queue_overflow",
]
RFQ_ERROR_CODES: Final[tuple[RfqErrorCode, ...]] = (
    "RFQ_NOT_ENABLED",
    "RFQ_NOT_READY",
    "RFQ_INVALID_INSTRUMENT",
    "RFQ_SIZE_INVALID",
    "RFQ_PRECISION_UNSUPPORTED",
    "RFQ_VALUE_OUT_OF_RANGE",
    "RFQ_OPEN_LIMIT",
    "RFQ_NOT_FOUND",
    "RFQ_WRONG_ROLE",
    "RFQ_INVALID_SIGNATURE",
    "RFQ_CANONICAL_MISMATCH",
    "RFQ_QUOTE_EXPIRED",
    "RFQ_STATE_CONFLICT",
    "RFQ_TAKER_UNFUNDED",
    "RFQ_BALANCE_INSUFFICIENT",
    "RFQ_PRICE_TOLERANCE",
    "RFQ_ATTESTATION_FAILED",
    "RFQ_TX_FAILED",
    "RFQ_RATE_LIMITED",
)
RPC_CODES: Final[dict[str, int]] = {
    "PARSE_ERROR": -32700,
    "INVALID_REQUEST": -32600,
    "METHOD_NOT_FOUND": -32601,
    "INVALID_PARAMS": -32602,
    "INTERNAL_ERROR": -32603,
    "AUTH_REQUIRED": 1000,
    "AUTH_INVALID_SIGNATURE": 1001,
    "AUTH_INVALID_NONCE": 1002,
    "SESSION_INVALID": 1004,
    "RATE_LIMITED": 1005,
    "RFQ_ERROR": 1200,
}
RFQ_ERROR_CODE: Final = 1200
SUBSCRIBE_METHODS: Final[dict[str, MethodName]] = {
    "rfq": "rfq.subscribe",
    "rfq_maker": "rfq.maker.subscribe",
}

RpcId: TypeAlias = str | int | None
UnixSeconds: TypeAlias = int
RfqSignedDecimal: TypeAlias = str
RfqDecimal: TypeAlias = str
RfqId: TypeAlias = str
QuoteId: TypeAlias = str
RfqState: TypeAlias = Literal["pending", "quoted", "accepted", "submitting", "filled", "declined", "expired", "failed"]
Side: TypeAlias = Literal["buy", "sell"]
Wallet: TypeAlias = str
Ed25519Base64: TypeAlias = str
InstrumentSymbol: TypeAlias = str
Asset: TypeAlias = str
Role: TypeAlias = Literal["taker", "quoter", "admin"]
TakerSalt: TypeAlias = str
RfqErrorReason: TypeAlias = Literal[
    "rfq_disabled",
    "market_data_stale",
    "views_unconfirmed",
    "shutting_down",
    "internal_error",
    "redis_unavailable",
    "instrument_unknown",
    "instrument_settled",
    "instrument_expired",
    "leg_duplicate",
    "legs_mixed",
    "instrument_paused",
    "zero_quantity",
    "leg_count",
    "max_quote_notional",
    "not_canonical_decimal",
    "invalid_params",
    "bid_above_ask",
    "quote_times",
    "quote_expiry_too_late",
    "issued_in_future",
    "accept_after_quote",
    "since_out_of_range",
    "max_open_rfqs",
    "max_open_quotes",
    "max_open_notional",
    "max_open_delta",
    "max_open_vega",
    "kill_switch",
    "maker_protection",
    "rfq_not_found",
    "quote_not_found",
    "cursor_not_found",
    "role_missing",
    "not_signed_in",
    "own_rfq",
    "signature_mismatch",
    "signature_not_canonical",
    "client_ref_reused",
    "quote_expired",
    "accept_expired",
    "quote_replaced",
    "quote_cancelled",
    "quote_traded_away",
    "rfq_ended",
    "quoted_by_another",
    "already_quoted",
    "nonce_not_increasing",
    "not_quoted",
    "already_accepted",
    "rfq_cancelled",
    "replay_running",
    "quote_firm",
    "taker_unfunded",
    "maker_unfunded",
    "price_band",
    "fee_above_max",
    "ledger_check_failed",
    "ledger_write_failed",
    "rate_limited",
    "query_rate",
    "replay_busy",
]
AssetDecimals: TypeAlias = dict[str, RfqDecimal]
MakerQuoteState: TypeAlias = Literal["live", "accepted", "filled", "failed", "traded_away", "replaced", "cancelled", "expired"]
QuoteEnd: TypeAlias = Literal["accepted", "traded_away", "replaced", "cancelled", "expired"]


class RfqLeg(TypedDict):
    """One leg, as the taker sent it (legs keep the taker order everywhere)"""

    instrument: InstrumentSymbol
    quantity: RfqSignedDecimal


class RfqQuote(TypedDict):
    quote_id: QuoteId
    maker: Wallet
    quote_nonce: str
    bid: RfqSignedDecimal
    ask: RfqSignedDecimal
    issued_at: UnixSeconds
    expires_at: UnixSeconds
    maker_signature: Ed25519Base64


class RfqFill(TypedDict):
    fill_id: str
    side: Side
    price: RfqSignedDecimal
    fee: RfqDecimal
    filled_at: UnixSeconds
    reverted: bool
    receipt: NotRequired[FillReceipt]


class FillReceipt(TypedDict):
    journal_seq: int
    kind: Literal[0, 1]
    payload: str
    hash: str
    key_id: str
    signature: str
    taker_salt: NotRequired[TakerSalt]


class RfqFailure(TypedDict):
    error: RfqErrorCode
    message: str


class RfqView(TypedDict):
    """The taker's view of an RFQ (design.md sections 5 and 18)"""

    rfq_id: RfqId
    client_ref: str
    state: RfqState
    legs: list[RfqLeg]
    created_at: UnixSeconds
    updated_at: UnixSeconds
    expires_at: UnixSeconds
    max_quote_expires_at: UnixSeconds
    quote: RfqQuote | None
    accepted_side: Side | None
    decline_reason: DeclineReason | None
    failure: RfqFailure | None
    fill: RfqFill | None
    cancelled_at: UnixSeconds | None
    competition: RfqCompetition | None
    quotes: list[RfqLiveQuote] | None
    best: RfqBest | None


class OpenRfq(TypedDict):
    """A pending RFQ as quoters see it: the legs are the exact structure quoted; the taker stays
    anonymous
    """

    rfq_id: RfqId
    legs: list[RfqLeg]
    created_at: UnixSeconds
    expires_at: UnixSeconds
    max_quote_expires_at: UnixSeconds
    competitive: NotRequired[Literal[True]]


class ClosedRfq(TypedDict):
    """An RFQ that left pending without the receiving quoter’s quote: the open RFQ object plus its
    state
    """

    rfq_id: RfqId
    legs: list[RfqLeg]
    created_at: UnixSeconds
    expires_at: UnixSeconds
    max_quote_expires_at: UnixSeconds
    state: RfqState
    competitive: NotRequired[Literal[True]]


class MakerQuoteEvent(TypedDict):
    rfq_id: RfqId
    quote_id: QuoteId
    state: RfqState
    side: Side | None
    fill: RfqFill | None


class InstrumentRecord(TypedDict):
    symbol: InstrumentSymbol
    asset: Asset
    strike: RfqDecimal
    kind: Literal["call", "put"]
    expiry: UnixSeconds
    paused: bool
    settled: bool
    settlement_price: RfqDecimal | None
    created_at: UnixSeconds
    mark_price: RfqDecimal | None
    iv: RfqDecimal | None


class MarketConfigPayloadVersions(TypedDict):
    quote: int
    accept: int


class MarketConfigAssetsItem(TypedDict):
    asset: Asset
    index_price: RfqDecimal
    index_updated_at: UnixSeconds


class MarketConfigRfq(TypedDict):
    enabled: bool
    max_legs: Literal[13]
    max_open_rfqs: int
    rfq_ttl_seconds: int
    max_quote_lifetime_seconds: Literal[3600]
    taker_fee_bps: int
    trade_fee_cap_bps: int
    taker_fee_tolerance_bps: int
    market_data_max_age_seconds: int


class MarketConfig(TypedDict):
    service_name: str
    quote_domain: str
    settlement_currency: Literal["USDC"]
    decimals: Literal[6]
    payload_versions: MarketConfigPayloadVersions
    assets: list[MarketConfigAssetsItem]
    rfq: MarketConfigRfq


class NonceChallenge(TypedDict):
    wallet: Wallet
    nonce: str
    expires_at: UnixSeconds
    message: str


class SignInResult(TypedDict):
    wallet: Wallet
    account_id: int | None
    roles: list[Role]
    session_token: str


class RfqFundingRequirement(TypedDict):
    """required = cash_debit + max_fee + lock_increase, for one accept side"""

    required: RfqDecimal
    estimate: bool
    funded: bool
    package_cash_delta: NotRequired[RfqSignedDecimal]
    cash_debit: NotRequired[RfqDecimal]
    fee: NotRequired[RfqDecimal]
    max_fee: NotRequired[RfqDecimal]
    writer: NotRequired[bool]
    lock_increase: NotRequired[RfqDecimal]
    post_fill_locked: NotRequired[RfqDecimal]


class RfqTakerFunding(TypedDict):
    """Advisory funding view (RFQ_TAKER_UNFUNDED details)"""

    anchored: bool
    free_balance: RfqDecimal | None
    buy: RfqFundingRequirement | None
    sell: RfqFundingRequirement | None


class RfqErrorData(TypedDict):
    """error.data of every rfq.* failure (interface.md 7.2)"""

    error: RfqErrorCode
    reason: RfqErrorReason
    message: str
    operation_id: str
    retryable: bool
    rfq_id: NotRequired[RfqId]
    quote_id: NotRequired[QuoteId]
    details: NotRequired[RfqTakerFunding]
    retry_after_ms: NotRequired[int]
    payload: NotRequired[str]


class MakerProtection(TypedDict):
    """Maker protection after fills: the maker is frozen when the fills of the last window_seconds
    exceed a threshold
    """

    window_seconds: int
    max_fills: NotRequired[int]
    max_fill_notional: NotRequired[RfqDecimal]
    max_fill_delta: NotRequired[AssetDecimals]
    frozen_seconds: int


class MakerLimits(TypedDict):
    """Every field optional (absent = no limit)"""

    max_open_quotes: NotRequired[int]
    max_open_notional: NotRequired[RfqDecimal]
    max_quote_notional: NotRequired[RfqDecimal]
    max_open_delta: NotRequired[AssetDecimals]
    max_open_vega: NotRequired[AssetDecimals]
    price_band_bps: NotRequired[int]
    protection: NotRequired[MakerProtection]


class MakerLimitsViewUsage(TypedDict):
    open_quotes: int
    open_notional: RfqDecimal
    open_delta: dict[str, RfqDecimal]
    open_vega: dict[str, RfqDecimal]


class MakerLimitsViewProtectionWindow(TypedDict):
    fills: int
    notional: RfqDecimal
    delta: dict[str, RfqDecimal]


class MakerLimitsViewProtection(TypedDict):
    frozen: bool
    until: int | None
    window: MakerLimitsViewProtectionWindow


class MakerLimitsView(TypedDict):
    """Limits, ceiling, usage of the live quotes at the current marks, and protection state
    (rfq.maker.get_limits)
    """

    limits: MakerLimits
    admin_limits: MakerLimits
    usage: MakerLimitsViewUsage
    protection: MakerLimitsViewProtection


class MakerProtectionTrip(TypedDict):
    tripped_at: int
    until: int | None
    reason: str


class MakerQuote(TypedDict):
    """One of the caller's quotes (rfq.maker.quotes). A seed quote is live while its RFQ is quoted
    and its expires_at has not passed, accepted while the RFQ is accepted or submitting, then
    filled or failed; expired when the RFQ expired or was cancelled
    """

    quote_id: QuoteId
    rfq_id: RfqId
    quote_nonce: str
    bid: RfqSignedDecimal
    ask: RfqSignedDecimal
    issued_at: UnixSeconds
    expires_at: UnixSeconds
    received_at_ms: int
    state: MakerQuoteState


class RfqCompetition(TypedDict):
    makers: list[Wallet] | None


class RfqLiveQuote(TypedDict):
    """A live quote of a competitive RFQ: the quote object plus when it was received"""

    quote_id: QuoteId
    maker: Wallet
    quote_nonce: str
    bid: RfqSignedDecimal
    ask: RfqSignedDecimal
    issued_at: UnixSeconds
    expires_at: UnixSeconds
    maker_signature: Ed25519Base64
    received_at_ms: int


class RfqBest(TypedDict):
    bid: QuoteId | None
    ask: QuoteId | None


class TranscriptQuote(TypedDict):
    quote_id: QuoteId
    maker: Wallet
    quote_nonce: str
    bid: RfqSignedDecimal
    ask: RfqSignedDecimal
    issued_at: UnixSeconds
    expires_at: UnixSeconds
    received_at_ms: int
    ended_at_ms: int
    end: QuoteEnd


class RfqTranscriptAccepted0(TypedDict):
    quote_id: QuoteId
    side: Side
    price: RfqSignedDecimal
    at_ms: int
    best: bool


class RfqTranscript(TypedDict):
    """What a competitive RFQ was offered (design.md 18): every quote it received, in order, with
    its end
    """

    kind: Literal["legwork.rfq_transcript"]
    version: Literal[1]
    service: str
    rfq_id: RfqId
    legs: list[RfqLeg]
    created_at: UnixSeconds
    closed_at_ms: int
    makers: list[Wallet] | None
    quotes: list[TranscriptQuote]
    accepted: RfqTranscriptAccepted0 | None


class RfqTranscriptResult(TypedDict):
    transcript: RfqTranscript
    payload: str
    hash: str
    key_id: str
    signature: str


class MakerStats(TypedDict):
    """A maker's last 7 days of competitive RFQs (design.md 18 'Choosing a panel')"""

    rfqs: int
    quoted: int
    median_response_ms: int | None
    cancelled: int
    replaced: int
    won: int


class DirectoryMaker(TypedDict):
    wallet: Wallet
    name: str | None
    stats: MakerStats


class QuoteEndEvent(TypedDict):
    """A maker's competitive quote that ended without a fill: no price, no winner, no taker"""

    rfq_id: RfqId
    quote_id: QuoteId


class RpcErrorData(TypedDict):
    """error.data of a non-RFQ failure (design.md section 4)"""

    error: RpcErrorName
    message: str
    operation_id: NotRequired[str]
    retry_after_ms: NotRequired[int]


class RfqErrorReplyError(TypedDict):
    code: Literal[1200]
    message: str
    data: RfqErrorData


class RfqErrorReply(TypedDict):
    """The failure of an rfq.* method: always code 1200 with the typed RFQ error"""

    jsonrpc: Literal["2.0"]
    id: RpcId
    error: RfqErrorReplyError


class RpcErrorReplyError(TypedDict):
    code: Literal[-32700, -32600, -32601, -32602, -32603, 1000, 1001, 1002, 1004, 1005]
    message: str
    data: RpcErrorData


class RpcErrorReply(TypedDict):
    """A non-RFQ failure (design.md section 4): parse errors, invalid requests, unknown methods and
    public/* failures
    """

    jsonrpc: Literal["2.0"]
    id: RpcId
    error: RpcErrorReplyError


class PublicGetNonceParams(TypedDict):
    """params of public/get_nonce"""

    wallet: Wallet


class PublicAuthParams(TypedDict):
    """params of public/auth"""

    wallet: Wallet
    signature: str
    message: str


class PublicSessionResumeParams(TypedDict):
    """params of public/session_resume"""

    session_token: str


class PublicGetMarketConfigParams(TypedDict):
    """params of public/get_market_config"""


class PublicGetInstrumentsParams(TypedDict):
    """params of public/get_instruments"""

    asset: NotRequired[Asset]
    expiry: NotRequired[UnixSeconds]
    include_settled: NotRequired[bool]


class PublicGetInstrumentsResult(TypedDict):
    """result of public/get_instruments"""

    instruments: list[InstrumentRecord]


class PublicGetTimeParams(TypedDict):
    """params of public/get_time"""


class PublicGetTimeResult(TypedDict):
    """result of public/get_time"""

    time_ms: int


class RfqCreateParamsCompetition(TypedDict):
    makers: NotRequired[list[Wallet]]


class RfqCreateParams(TypedDict):
    """params of rfq.create"""

    client_ref: str
    legs: list[RfqLeg]
    competition: NotRequired[RfqCreateParamsCompetition]


class RfqAcceptParams(TypedDict):
    """params of rfq.accept"""

    quote_id: QuoteId
    side: Side
    expires_at: UnixSeconds
    taker_signature: Ed25519Base64


class RfqAcceptResult(TypedDict):
    """result of rfq.accept"""

    rfq_id: RfqId
    quote_id: QuoteId
    side: Side
    state: Literal["accepted"]
    best: NotRequired[bool]


class RfqCancelParams(TypedDict):
    """params of rfq.cancel"""

    rfq_id: RfqId


class RfqCancelResult(TypedDict):
    """result of rfq.cancel"""

    rfq_id: RfqId
    state: Literal["expired"]
    cancelled_at: UnixSeconds


class RfqCancelAllParams(TypedDict):
    """params of rfq.cancel_all"""


class RfqCancelAllResult(TypedDict):
    """result of rfq.cancel_all"""

    cancelled: list[RfqId]


class RfqGetParams(TypedDict):
    """params of rfq.get"""

    rfq_id: RfqId


class RfqListParams(TypedDict):
    """params of rfq.list"""

    states: NotRequired[list[RfqState]]
    cursor: NotRequired[RfqId]
    limit: NotRequired[int]


class RfqListResult(TypedDict):
    """result of rfq.list"""

    items: list[RfqView]
    next_cursor: NotRequired[RfqId]


class RfqSubscribeParams(TypedDict):
    """params of rfq.subscribe"""

    since: NotRequired[int]


class RfqSubscribeResult(TypedDict):
    """result of rfq.subscribe"""

    channel: Literal["rfq"]
    subscribed: Literal[True]
    account_seq: int


class RfqTranscriptParams(TypedDict):
    """params of rfq.transcript"""

    rfq_id: RfqId


class RfqMakerPollParams(TypedDict):
    """params of rfq.maker.poll"""

    cursor: NotRequired[RfqId]
    limit: NotRequired[int]


class RfqMakerPollResult(TypedDict):
    """result of rfq.maker.poll"""

    items: list[OpenRfq]
    next_cursor: NotRequired[RfqId]


class RfqMakerRespondParams(TypedDict):
    """params of rfq.maker.respond"""

    rfq_id: RfqId
    quote_nonce: str
    bid: RfqSignedDecimal
    ask: RfqSignedDecimal
    issued_at: UnixSeconds
    expires_at: UnixSeconds
    maker_signature: Ed25519Base64


class RfqMakerRespondResult(TypedDict):
    """result of rfq.maker.respond"""

    rfq_id: RfqId
    quote_id: QuoteId
    state: Literal["quoted"]


class RfqMakerDeclineParams(TypedDict):
    """params of rfq.maker.decline"""

    rfq_id: RfqId
    reason: DeclineReason


class RfqMakerDeclineResult(TypedDict):
    """result of rfq.maker.decline"""

    rfq_id: RfqId
    state: Literal["declined"]
    decline_reason: DeclineReason


class RfqMakerSubscribeParams(TypedDict):
    """params of rfq.maker.subscribe"""

    since: NotRequired[int]


class RfqMakerSubscribeResult(TypedDict):
    """result of rfq.maker.subscribe"""

    channel: Literal["rfq_maker"]
    subscribed: Literal[True]
    account_seq: int


class RfqMakerCancelQuoteParams(TypedDict):
    """params of rfq.maker.cancel_quote"""

    quote_id: QuoteId


class RfqMakerCancelQuoteResult(TypedDict):
    """result of rfq.maker.cancel_quote"""

    quote_id: QuoteId
    state: Literal["cancelled"]


class RfqMakerCancelQuotesParams(TypedDict):
    """params of rfq.maker.cancel_quotes"""


class RfqMakerCancelQuotesResult(TypedDict):
    """result of rfq.maker.cancel_quotes"""

    cancelled: list[QuoteId]


class RfqMakerSetLimitsParams(TypedDict):
    """params of rfq.maker.set_limits"""

    limits: MakerLimits


class RfqMakerGetLimitsParams(TypedDict):
    """params of rfq.maker.get_limits"""


class RfqMakerResetProtectionParams(TypedDict):
    """params of rfq.maker.reset_protection"""


class RfqMakerCheckParams(TypedDict):
    """params of rfq.maker.check"""

    rfq_id: RfqId
    quote_nonce: str
    bid: RfqSignedDecimal
    ask: RfqSignedDecimal
    issued_at: UnixSeconds
    expires_at: UnixSeconds
    maker_signature: Ed25519Base64


class RfqMakerCheckResult(TypedDict):
    """result of rfq.maker.check"""

    ok: Literal[True]
    quote_id: QuoteId
    payload: str


class RfqMakerQuotesParams(TypedDict):
    """params of rfq.maker.quotes"""

    state: NotRequired[Literal["live", "all"]]
    after: NotRequired[QuoteId]
    limit: NotRequired[int]


class RfqMakerQuotesResult(TypedDict):
    """result of rfq.maker.quotes"""

    items: list[MakerQuote]
    next_cursor: NotRequired[QuoteId]


class RfqMakerSetProfileParams(TypedDict):
    """params of rfq.maker.set_profile"""

    listed: NotRequired[bool]
    name: NotRequired[str]
    cancel_on_disconnect: NotRequired[bool]


class RfqMakerSetProfileResult(TypedDict):
    """result of rfq.maker.set_profile"""

    listed: bool
    name: str | None
    cancel_on_disconnect: bool


class RfqMakersParams(TypedDict):
    """params of rfq.makers"""


class RfqMakersResult(TypedDict):
    """result of rfq.makers"""

    makers: list[DirectoryMaker]


class RfqMakerStatsParams(TypedDict):
    """params of rfq.maker.stats"""


class SessionLapsedData(TypedDict):
    """At the token's exp or at a revoke of the account's sessions (design.md section 10): the
    connection is as before sign-in, its subscriptions dropped
    """

    seq: int
    event: Literal["expired", "revoked"]


class RfqEventData(TypedDict):
    """Every state move of one of the subscriber’s RFQs; `quotes` whenever the live quotes of a
    competitive RFQ change (added, replaced, cancelled, expired, a maker declined), its state
    showing the moves between pending and quoted
    """

    seq: int
    account_seq: int
    event: Literal["quoted", "accepted", "submitting", "filled", "declined", "expired", "failed", "quotes"]
    rfq: RfqView


class RfqMakerCreatedData(TypedDict):
    """To every subscribed quoter but the taker; for a competitive RFQ with a panel, to the panel
    only
    """

    seq: int
    event: Literal["created"]
    rfq: OpenRfq


class RfqMakerClosedData(TypedDict):
    """A seed RFQ left pending without the receiver’s quote (quoted by another maker, declined,
    expired); a competitive RFQ left the open book (accepted, declined, expired, cancelled, its
    round settled) while the receiver, on its panel, had no live quote
    """

    seq: int
    event: Literal["closed"]
    rfq: ClosedRfq


class RfqMakerQuoteData(TypedDict):
    """accepted, filled, failed or expired, to the maker holding the quote"""

    seq: int
    account_seq: int
    event: Literal["accepted", "filled", "failed", "expired"]
    rfq: MakerQuoteEvent


class RfqMakerQuoteEndedData(TypedDict):
    """traded_away: the taker accepted another quote; expired: the quote reached its expires_at,
    the taker cancelled the RFQ, or its round settled (design.md 18). No price, no winner, no
    taker
    """

    seq: int
    account_seq: int
    event: Literal["traded_away", "expired"]
    rfq: QuoteEndEvent


class RfqMakerProtectionData(TypedDict):
    """To the maker whose fills in its protection window exceeded a threshold (design.md section
    15): new quotes are refused (RFQ_OPEN_LIMIT) until `until`, or until
    rfq.maker.reset_protection when null; live quotes stay firm
    """

    seq: int
    account_seq: int
    event: Literal["protection"]
    protection: MakerProtectionTrip


PublicGetNonceResult: TypeAlias = NonceChallenge
PublicAuthResult: TypeAlias = SignInResult
PublicSessionResumeResult: TypeAlias = SignInResult
PublicGetMarketConfigResult: TypeAlias = MarketConfig
RfqCreateResult: TypeAlias = RfqView
RfqGetResult: TypeAlias = RfqView
RfqMakerSetLimitsResult: TypeAlias = MakerLimitsView
RfqMakerGetLimitsResult: TypeAlias = MakerLimitsView
RfqMakerResetProtectionResult: TypeAlias = MakerLimitsView
RfqMakerStatsResult: TypeAlias = MakerStats
SessionNotificationData: TypeAlias = SessionLapsedData
RfqNotificationData: TypeAlias = RfqEventData
RfqMakerNotificationData: TypeAlias = RfqMakerCreatedData | RfqMakerClosedData | RfqMakerQuoteData | RfqMakerQuoteEndedData | RfqMakerProtectionData
