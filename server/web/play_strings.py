"""The browser table's words (issue #32), in the visitor's language: the page hands them
to ``play.js`` as a JSON data block, so the script holds no text of its own. Placeholders
are ``%(name)s``, filled by the script. The log's and the results' sentences reuse the
replay's msgids (``templatetags/dekabes.py``)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from engine.tiles import ALL_TILES, TILES_IN_HAND

# Numbers as a screen reader says a tile: "five-three".
NUMBER_WORDS = (
    _("blank"),
    _("one"),
    _("two"),
    _("three"),
    _("four"),
    _("five"),
    _("six"),
)

STRINGS = {
    # the board
    "seat": _("Seat %(n)s"),
    "you": _("you"),
    "team": _("Team %(team)s"),
    "bot": _("computer"),
    "seat_free": _("free"),  # a human seat nobody has taken yet
    "here": _("here"),
    "away": _("away"),
    "to_act": _("to play"),
    "hand_no": _("Hand %(n)s"),
    "base": _("Base %(n)s"),
    "wins": _("hands won %(n)s"),
    "scores": _("Score"),
    "your_tiles": _("Your tiles"),
    "line": _("The line"),
    "line_empty": _("No tile laid yet"),
    "left_end": _("Left end: %(n)s"),
    "right_end": _("Right end: %(n)s"),
    "last_tile": _("last tile laid: %(tile)s"),
    "tile_by": _("%(tile)s, laid by seat %(n)s"),
    "fits": _("fits"),
    # the stages
    "accept_prompt": _("Look at your tiles, then accept the deal."),
    "accept": _("Accept the deal"),
    "claim_redeal": _("Claim a redeal (five doubles)"),
    "accepted_wait": _("You accepted. Waiting for the others to accept."),
    "redeal_claimed": _("A redeal was claimed: new tiles are dealt."),
    "opener_prompt": _("Your team won the last hand: who opens this one?"),
    "open_me": _("I open"),
    "open_partner": _("My partner opens"),
    "opener_wait": _("Seat %(n)s chooses who opens."),
    "your_turn": _("Your turn: pick a tile that fits."),
    "your_turn_title": _("Your turn"),
    "must_open": _("Your turn: open the hand."),
    "picked": _("%(tile)s picked: play it, or pick another."),
    "choose_end": _("%(tile)s fits both ends: choose one."),
    "play": _("Play %(tile)s"),
    "play_left": _("Play on the left end (%(n)s)"),
    "play_right": _("Play on the right end (%(n)s)"),
    "waiting_for": _("Waiting for seat %(n)s."),
    "waiting_for_many": _("Waiting for seats %(seats)s."),
    "passed": _("Seat %(n)s passes: no %(a)s, no %(b)s."),
    "paused": _("Paused: a player is reading the rules or the log."),
    "sent": _("Sending…"),
    # the end of a hand and of the match
    "hand_over": _("Hand %(n)s is over"),
    "why_dekabes": _("%(tile)s fitted both ends (%(left)s and %(right)s): Dékabès, double points."),
    "why_not_dekabes": _(
        "Last tile %(tile)s on ends %(left)s and %(right)s: no Dékabès "
        "(that needs a non-double fitting both ends)."
    ),
    "next_base": _("The next win is worth %(n)s."),
    "continue": _("Continue"),
    "match_over": _("The match is over"),
    "match_won": _("Team %(team)s wins the match %(a)s–%(b)s."),
    "you_won": _("Your team won!"),
    "you_lost": _("Your team lost."),
    "new_match": _("New match"),
    "dealt": _("dealt"),
    "left_in_hand": _("left"),
    # tools
    "rules": _("Rules"),
    "log": _("Log"),
    "close": _("Close"),
    "pauses_computers": _("The computer players wait while this is open."),
    "hint": _("Hint"),
    "hint_is": _("Hint: %(move)s"),
    "hint_none": _("Nothing to play now."),
    "undo": _("Undo"),
    "redo": _("Redo"),
    "restart_hand": _("Restart the hand"),
    "leave": _("Leave the table"),
    "sound": _("Sound on my turn"),
    "vibrate": _("Vibrate on my turn"),
    "confirm_restart": _("Restart this hand from its deal? The moves of this hand are lost."),
    "confirm_new_match": _("Start a new match? The scores go back to 0."),
    "confirm_leave": _("Leave your seat? Someone else may take it."),
    "yes": _("Yes"),
    "no": _("No"),
    "left_table": _("You left the table."),
    # takeback by consent
    "takeback_asks": _("Seat %(n)s asks: %(what)s. Do you agree?"),
    "takeback_wait": _("Asked: %(what)s. Waiting for %(seats)s."),
    "agree": _("Agree"),
    "decline": _("Decline"),
    "cmd_undo": _("take the last move back"),
    "cmd_redo": _("redo the move"),
    "cmd_restart_hand": _("restart the hand"),
    "cmd_new_match": _("start a new match"),
    # several seats of one person
    "your_seats": _("Your seats"),
    "show_seat": _("Play seat %(n)s"),
    "handoff": _("Seat %(n)s's turn: hand the device over."),
    "handoff_show": _("I am seat %(n)s: show my tiles"),
    # notices
    "handover": _("Seat %(n)s is now played by %(to)s."),
    "handover_open": _("Seat %(n)s is open now."),
    "forfeited": _("The match was ended by forfeit."),
    "annulled": _("The match was annulled."),
    "deadline": _("Round deadline: %(at)s"),
    "online": _("Live"),
    "reconnecting": _("Connection lost: reconnecting…"),
    "offline_queued": _("Offline: your move is sent as soon as the connection is back."),
    "refused": _("Not done: %(why)s"),
    "stale": _("The table moved on: look again."),
    "not_your_seat": _("This seat is no longer yours."),
    # the log's lines (the replay's msgids)
    "log_play_left": _("Seat %(s)s plays %(t)s on the left"),
    "log_play_right": _("Seat %(s)s plays %(t)s on the right"),
    "log_play": _("Seat %(s)s plays %(t)s"),
    "log_pass": _("Seat %(s)s passes"),
    "log_no_moves": _("No move yet in this hand."),
    "log_hands": _("Hands played"),
    "result_tie": _("Tied block: scores unchanged"),
    "result_block": _("Team %(team)s wins the block: %(points)s"),
    "result_domino": _("Team %(team)s wins by domino: %(points)s"),
    "result_dekabes": _("Dékabès! Team %(team)s scores %(points)s"),
    # the points of a hand are 1, 2 or 4: one form for 1, one for 2 and 4 (Russian too)
    "point_one": _("%(n)s point"),
    "points_many": _("%(n)s points"),
    # the rules panel (RULES.md, in short)
    "rules_text": _(
        "Teams: seats 1 and 3 against seats 2 and 4. Each seat gets 7 tiles and accepts its "
        "deal; five doubles or more may claim a redeal.|The first hand opens with 6-6; after "
        "it, the team that won the last hand chooses which of its two players opens, with any "
        "tile.|Play a tile matching an open end of the line. If you can play, you must; if "
        "you cannot, you pass (the server passes for you).|A hand ends when a player lays "
        "the last tile (domino) or after four passes in a row (block: the lowest count of "
        "pips left wins for its team; the lowest held by both teams is a tie).|A win scores "
        "the base (1, or 2 after a tie). Dékabès: the last tile is not a double and fitted "
        "both open ends — double the base.|The winners add their points, the other team goes "
        "back to 0. The first team to 4 points wins the match."
    ),
}


# The most pips one seat can hold: the seven heaviest tiles.
MOST_PIPS_IN_HAND = sum(sorted((t.pips for t in ALL_TILES), reverse=True)[:TILES_IN_HAND])


def play_strings() -> dict:
    """The words in the active language, as plain strings (for ``json_script``)."""
    words: dict[str, object] = {key: str(value) for key, value in STRINGS.items()}
    words["numbers"] = [str(n) for n in NUMBER_WORDS]
    # counts by number, each in the language's plural form for it (Russian has three):
    # the script takes list[n] and fills in %(n)s, and so holds no plural rule of its own
    words["tiles_left"] = [
        ngettext("%(n)s tile", "%(n)s tiles", n) for n in range(TILES_IN_HAND + 1)
    ]
    words["pips"] = [ngettext("%(n)s pip", "%(n)s pips", n) for n in range(MOST_PIPS_IN_HAND + 1)]
    return words
