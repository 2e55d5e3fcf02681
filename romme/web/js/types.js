// @ts-check
// The shapes of docs/protocol.md as the web client reads them: JSDoc types only,
// for the type check (make typecheck-js). A field renamed on either side fails it.

/** A card code: rank and suit ("7C", "TH", "AS") or the joker "XX". @typedef {string} Card */

/**
 * @typedef {object} Player
 * @property {number} id
 * @property {string} nickname
 * @property {boolean} guest
 * @property {number} rating
 * @property {number} [level] the level's number (docs/protocol.md, "Statistics, experience and levels")
 */

/**
 * @typedef {object} Settings
 * @property {'classic' | 'three-rounds'} [preset]
 * @property {'open' | 'invite'} [access]
 * @property {number} [seats]
 * @property {Record<string, string>} [bots]
 * @property {number} [point_limit]
 * @property {boolean} [hand_rummy]
 * @property {boolean} [knock]
 * @property {number} [turn_seconds]
 * @property {number} [stake] chips each seat pays into the pot (0: free)
 */

/**
 * The engine's rules, as far as the client reads them.
 * @typedef {object} Rules
 * @property {number} opening_points
 * @property {boolean} opening_single_meld
 * @property {number} [min_natural_cards]
 * @property {number | null} [max_jokers_per_meld]
 * @property {boolean} must_discard_to_go_out
 * @property {boolean} [joker_exchange_to_hand] classic: an exchanged joker goes to the hand; else it must be laid in a new meld
 * @property {number} point_limit
 * @property {'penalties' | 'rounds'} scoring
 * @property {number} rounds
 * @property {number} knock_window_seconds
 * @property {number} stall_turns
 */

/**
 * A meld on the table.
 * @typedef {object} Meld
 * @property {'group' | 'sequence'} kind
 * @property {Card[]} cards
 * @property {number} start a group's rank, or a sequence's first position (1..14)
 */

/**
 * @typedef {object} RoundResult
 * @property {number} round_no
 * @property {number | null} winner
 * @property {'out' | 'stock' | 'stall'} ended
 * @property {boolean} hand_rummy
 * @property {Card[][]} hands
 * @property {number[]} penalties
 * @property {number[]} totals
 * @property {number[]} eliminated
 * @property {string} seed
 * @property {string} commitment
 */

/**
 * A seat's view of the game (romme.engine.view.SeatView.to_json()).
 * @typedef {object} View
 * @property {number | null} seat
 * @property {Rules} rules
 * @property {number} seats
 * @property {'not_started' | 'draw' | 'play' | 'round_over' | 'game_over'} phase
 * @property {number} round_no
 * @property {number} current
 * @property {Card[]} hand
 * @property {number[]} hand_counts
 * @property {number} stock_count
 * @property {Card | null} discard_top
 * @property {number} discard_count
 * @property {Meld[]} melds
 * @property {number[]} meld_owners
 * @property {boolean[]} opened
 * @property {number[]} totals
 * @property {boolean[]} active
 * @property {number} pending_jokers
 * @property {number[]} knock_seats
 * @property {RoundResult[]} results
 * @property {number[]} winners
 * @property {{seat: number, move: string, cards: Card[]}[]} [history] the round's public moves, oldest first
 */

/**
 * @typedef {object} Timer
 * @property {number} seat
 * @property {number} deadline
 * @property {number} [start]
 * @property {number} seconds
 * @property {{seats: number[], deadline: number} | null} knock
 */

/**
 * @typedef {object} SeatInfo
 * @property {number} seat
 * @property {string | null} nickname
 * @property {number | null} [level] the player's level number when it sat down
 * @property {string | null} bot
 * @property {boolean} [connected]
 * @property {boolean} [away]
 * @property {boolean} [left]
 */

/** @typedef {{waiting_for: number[], deadline: number}} NextRound */
/** @typedef {Record<string, {before: number, after: number}>} Ratings */
/** @typedef {{at: number, from: string, text: string}} ChatMessage */

/**
 * A table as this connection knows it: the `table` message, kept up to date by
 * `update`, `seat_update`, `next_round`, `table_chat` and `game_over`.
 * @typedef {object} Table
 * @property {number} id
 * @property {string} host
 * @property {Settings} settings
 * @property {{percent: number, amount: number}} [operating_cost] the house's part of a full table's pot
 * @property {'waiting' | 'playing' | 'finished'} status
 * @property {SeatInfo[]} seats
 * @property {number | null} my_seat
 * @property {number} version
 * @property {View | null} view
 * @property {Timer | null} timer
 * @property {NextRound | null} next_round
 * @property {ChatMessage[]} chat
 * @property {number} [free_seats]
 * @property {{ratings?: Ratings} | null} [game_over]
 * @property {Rematch | null} [rematch]
 * @property {HistoryMeta[]} [history_meta] when each entry of the view's history was made (the server's clock), and by whom if the turn clock made it; kept on from the updates
 */

/** @typedef {{at?: number, by?: 'timeout'}} HistoryMeta */

/**
 * The rematch offer of a finished table (`rematch` message).
 * @typedef {{status: 'open' | 'accepted' | 'declined' | 'expired' | 'failed', accepted: number[], declined: number[],
 *   waiting_for: number[], deadline: number, table: number | null}} Rematch
 */

/**
 * A table in the lobby's list.
 * @typedef {object} TableSummary
 * @property {number} id
 * @property {string} host
 * @property {Settings} settings
 * @property {'waiting' | 'playing' | 'finished'} status
 * @property {SeatInfo[]} seats
 * @property {number} free_seats
 */

/**
 * @typedef {object} Invitation
 * @property {number} id
 * @property {number} table
 * @property {string} from
 * @property {string} to
 * @property {string} status open, accepted, declined or expired
 * @property {number} [expires_at]
 */

/**
 * A move as the engine takes it (without `seat`: the server fills it in).
 * @typedef {{type: 'draw', source: 'stock' | 'discard'}
 *   | {type: 'lay', melds: Card[][]}
 *   | {type: 'lay_off', card: Card, meld: number, end: 'low' | 'high' | null}
 *   | {type: 'exchange_joker', card: Card, meld: number, index: number}
 *   | {type: 'discard', card: Card}
 *   | {type: 'knock'}
 *   | {type: 'arrange', cards: Card[]}} Action
 */

/**
 * An engine event, filtered for this seat (`card` is null for a card others drew).
 * @typedef {object} GameEvent
 * @property {string} type
 * @property {number} [seat]
 * @property {'stock' | 'discard'} [source]
 * @property {Card | null} [card]
 * @property {Card[]} [drawn]
 * @property {Card[][]} [melds]
 * @property {RoundResult} [result]
 */

/** A message to the server (docs/protocol.md); `type` names it. @typedef {{type: string, [field: string]: unknown}} Message */

/** An error as the server or the HTTP layer reports it. @typedef {{type?: 'error', code: string, message?: string, until?: number}} ServerError */

/**
 * A player's friends, friend requests and blocks (the `friends` message).
 * @typedef {{friends: {nickname: string, online: boolean}[], incoming: string[], outgoing: string[], blocked: string[]}} Friends
 */

/**
 * What the screens use of the app (main.js).
 * @typedef {object} App
 * @property {Player | null} me
 * @property {string[]} botLevels the computer opponents' levels, weakest first (from `welcome`)
 * @property {Promise<void>} welcomed resolved once the first `welcome` arrived (the levels are known)
 * @property {number | null} chatMax the longest chat message the server takes (from `welcome`)
 * @property {{tables: TableSummary[], players: Player[], chat: ChatMessage[], invitations: Invitation[], version?: number | null}} lobby
 *   (`version`: of the tables and players, the base of the next `lobby_delta`; see lobbyfeed.js)
 * @property {Map<number, Table>} tables
 * @property {Friends} friends
 * @property {() => void} friendsChanged redraw what shows friends, blocks and muted players
 * @property {number | null} tableId
 * @property {() => number} now the server's clock, in ms since the epoch
 * @property {(msg: Message) => string | false | undefined} send
 * @property {(msg: Message) => Promise<any>} request
 * @property {(err: ServerError | null | undefined) => string} errorText
 * @property {(err: ServerError) => void} showError
 * @property {(id: number) => void} openTable
 * @property {() => void} openLobby
 * @property {() => Promise<void>} logout
 */

export {};
