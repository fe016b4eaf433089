"""Who is still in a cup, as its public history tells it (R15, R17, R18, R23)."""

from __future__ import annotations

from engine.cups import CupRound, KnockoutGame, RoundState, knocked_out, plays_round

PUBLISHED, ARBITRATED, TO_PLAY = RoundState.PUBLISHED, RoundState.ARBITRATED, RoundState.TO_PLAY


def knockout(number: int, state: RoundState = PUBLISHED, **seen: bool) -> CupRound:
    """A drawn knockout round that names the teams it sends on once played."""
    return CupRound(number, state, drawn=True, sends_on=state is not TO_PLAY, **seen)


# --- plays_round -----------------------------------------------------------------------------


def test_with_no_round_drawn_every_team_of_the_cup_is_in() -> None:
    assert plays_round([], 1)
    assert plays_round([CupRound(1, TO_PLAY)], 1)


def test_a_drawn_round_is_played_by_its_teams_only() -> None:
    assert plays_round([knockout(1, TO_PLAY, plays=True)], 1)
    assert not plays_round([knockout(1, TO_PLAY)], 1)


def test_the_winner_of_a_published_game_plays_the_next_round() -> None:
    # R17: the round's games are not drawn yet; its winners are in.
    won = knockout(2, plays=True, played=True, sends_team_on=True)
    assert plays_round([knockout(1, plays=True, sends_team_on=True), won], 3)


def test_the_loser_of_a_published_game_is_out() -> None:
    lost = knockout(2, plays=True, played=True)
    assert not plays_round([lost], 3)
    assert not plays_round([lost], 7)


def test_a_lucky_loser_goes_on_in_the_place_of_a_double_forfeit() -> None:
    # R15: both teams ONR are out; the round's best loser takes their place.
    lucky_loser = knockout(2, plays=True, played=True, sends_team_on=True)
    forfeited = knockout(2, plays=True, played=True)
    assert plays_round([lucky_loser], 3)
    assert not plays_round([forfeited], 3)


def test_a_team_given_a_bye_goes_on() -> None:
    # An odd number of teams left: the die's pick goes on without playing (R15, R17).
    bye = knockout(3, sends_team_on=True)
    assert plays_round([bye], 4)


def test_a_drawn_round_decides_even_after_the_team_went_on() -> None:
    # Round 3 is drawn (and public): a team sent on by round 2 plays it only if drawn in it.
    sent_on = knockout(2, plays=True, played=True, sends_team_on=True)
    assert not plays_round([sent_on, knockout(3, TO_PLAY)], 3)
    assert plays_round([sent_on, knockout(3, TO_PLAY, plays=True)], 3)


def test_a_played_round_not_published_puts_nobody_out() -> None:
    # R23: its losers may still send picks for the next round until it is published.
    unpublished = knockout(2, ARBITRATED, plays=True, played=True)
    assert plays_round([unpublished], 3)


def test_a_draw_made_from_a_round_not_published_is_not_looked_at() -> None:
    # Round 3's games were drawn by round 2's arbitration: secret until round 2 is published.
    unpublished = knockout(2, ARBITRATED, plays=True, played=True)
    secret_draw = knockout(3, TO_PLAY)
    assert plays_round([unpublished, secret_draw], 3)
    assert plays_round([unpublished, secret_draw, knockout(4, TO_PLAY)], 4)


def test_a_team_not_in_the_round_being_played_is_out() -> None:
    assert not plays_round([knockout(2, TO_PLAY)], 3)
    assert not plays_round([knockout(2, ARBITRATED)], 3)


def test_the_teams_exempt_from_the_qualifying_round_are_in_the_round_of_64() -> None:
    # R17: they may send their picks for the round of 64 and after in advance (R12).
    qualifying = CupRound(1, TO_PLAY, qualifying=True, drawn=True)
    assert plays_round([qualifying], 2)
    assert plays_round([qualifying], 7)
    assert not plays_round([qualifying], 1)


def test_a_published_qualifying_round_sends_on_its_winners_and_those_it_exempted() -> None:
    # The site names the exempt teams among those the qualifying round sends on (R17).
    exempt = CupRound(1, PUBLISHED, qualifying=True, drawn=True, sends_on=True)
    assert not plays_round([exempt], 2)
    assert plays_round([CupRound(1, PUBLISHED, True, True, False, True, True)], 2)


def test_a_wg_group_round_keeps_the_teams_that_played_it() -> None:
    # R18: a group round sends nobody on; the semi-finals are drawn once the groups are over.
    group = CupRound(6, PUBLISHED, drawn=True, plays=True, played=True)
    assert plays_round([group], 7)
    assert not plays_round([CupRound(6, PUBLISHED, drawn=True)], 7)


def test_the_wg_semi_finals_are_played_by_the_teams_drawn_in_them() -> None:
    # R18: three group winners and the best second, drawn into two semi-finals.
    group = CupRound(6, PUBLISHED, drawn=True, plays=True, played=True)
    assert plays_round([group, knockout(7, TO_PLAY, plays=True)], 7)
    assert not plays_round([group, knockout(7, TO_PLAY)], 7)


def test_a_published_round_not_drawn_yet_is_the_latest_word() -> None:
    # A round published without games (its pairings are still to come) counts as drawn.
    published = CupRound(2, PUBLISHED, sends_on=True, sends_team_on=True)
    assert plays_round([published, CupRound(3, TO_PLAY)], 4)
    assert not plays_round([CupRound(2, PUBLISHED, sends_on=True)], 4)


def test_a_later_round_does_not_speak_for_an_earlier_one() -> None:
    out_later = knockout(5, plays=True, played=True)
    assert plays_round([knockout(3, TO_PLAY, plays=True), out_later], 3)


# --- knocked_out -----------------------------------------------------------------------------


def test_the_loser_of_a_knockout_game_is_out() -> None:
    assert knocked_out([KnockoutGame(1, "a", "b", "a")], []) == {"b"}


def test_both_teams_of_a_double_forfeit_are_out() -> None:
    # R15: a game with no winner.
    assert knocked_out([KnockoutGame(1, "a", "b", None)], []) == {"a", "b"}


def test_a_loser_sent_on_as_lucky_loser_is_not_out() -> None:
    # R15: the round's best loser takes the place of a double forfeit; sent on in that round only.
    games = [KnockoutGame(1, "a", "b", "a"), KnockoutGame(2, "a", "c", "c")]
    assert knocked_out(games, [(1, "a"), (1, "b"), (2, "c")]) == {"a"}
    assert knocked_out(games, [(2, "b")]) == {"a", "b"}
