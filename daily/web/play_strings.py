"""The strings of the game screen that every mode shares, for ``static/js/``.

They join the page's one ``#strings`` block (``pages.js_strings``): party games, the
first-game lesson, the hand-over, the verdict, the celebrations, the share grid, a result's rank
and sharing (:func:`result_strings`) and the hints (:func:`hint_strings`).
Placeholders are ``{name}`` for the script's ``fmt``.
"""

from __future__ import annotations

from flask_babel import gettext, ngettext


def play_strings() -> dict[str, str]:
    """The game screen's messages in the request's language."""
    return {
        "rollAgain": gettext("Roll again (%(n)s left)", n="{n}"),
        # A new player past the address's free ones: the device's proof of work, in hundredths.
        "makingPlayer": gettext("Setting up your player: %(n)s/100", n="{n}"),
        # A guest's generic name ("Guest 1a2b" in the API) in the reader's language, as the
        # server's ``player_name`` filter shows it.
        "guest": gettext("Guest %(n)s", n="{n}"),
        # A friend code's creator who deleted their account (the API's name is null).
        "deleted": gettext("a deleted player"),
        # Party games: whose turn, the hand-over between players, the winner.
        "toPlay": gettext("%(name)s to play", name="{name}"),
        "turnOf": gettext(
            "%(name)s: turn %(turn)s of %(turns)s", name="{name}", turn="{turn}", turns="{turns}"
        ),
        "wins": gettext("%(name)s wins with %(total)s points!", name="{name}", total="{total}"),
        "tieAt": gettext("A tie at %(total)s points: %(names)s", total="{total}", names="{names}"),
        "needTwo": gettext("Name at least two players."),
        "passTo": gettext("Pass the phone to %(name)s", name="{name}"),
        "iAm": gettext("I am %(name)s: show my dice", name="{name}"),
        **_verdict_strings(),
        # A request that did not get through: the move waits and goes out again by itself.
        "offlineWait": gettext(
            "No connection: your move is kept and goes out when the network is back."
        ),
        "online": gettext("Connected again."),
    }


def _verdict_strings() -> dict[str, str]:
    """The end of a game: verdicts, celebrations, the share, skill and luck, leagues."""
    return {
        # The verdict of a finished game.
        "percentile": gettext("better than %(n)s%% of today's players", n="{n}"),
        "beat": gettext(
            "You beat %(name)s: %(you)s to %(them)s", name="{name}", you="{you}", them="{them}"
        ),
        "lost": gettext(
            "%(name)s wins: %(them)s to your %(you)s", name="{name}", you="{you}", them="{them}"
        ),
        "tiedWith": gettext("A tie with %(name)s at %(you)s", name="{name}", you="{you}"),
        "bonusGot": gettext("Bonus: +%(n)s", n="{n}"),
        "bonusShort": gettext("No bonus: %(n)s short", n="{n}"),
        "streak": gettext("Days in a row: %(n)s", n="{n}"),
        "bestDay": gettext("Your best day: %(n)s", n="{n}"),
        # Celebrations (a short burst; a plain line under reduced motion).
        "yayBonus": gettext("Bonus made!"),
        "yayAllSame": gettext("%(row)s!", row="{row}"),
        "yayBest": gettext("A new best day!"),
        "yayStreak": gettext("%(n)s days in a row!", n="{n}"),
        **_share_strings(),
        **_standing_strings(),
    }


def _share_strings() -> dict[str, str]:
    """The shared text's head line: the score, skill, luck and the Expert."""
    return {
        # The share grid: a headline, then the rows as squares, then the link.
        "shareDaily": gettext(
            "Daily Maxi Yatzy #%(number)s: %(total)s", number="{number}", total="{total}"
        ),
        "shareGame": gettext("%(ruleset)s: %(total)s", ruleset="{ruleset}", total="{total}"),
        # Skill and luck (docs/strategy.md): on the head line of the shared text, after the
        # score, and on the result (its labels are the page's).
        "shareSkill": gettext("skill %(n)s%%", n="{n}"),
        "shareLuck": gettext("luck %(n)s", n="{n}"),
        "shareExpert": gettext("Expert %(n)s", n="{n}"),
        "percentValue": gettext("%(n)s%%", n="{n}"),
    }


def _standing_strings() -> dict[str, str]:
    """Where a finished game stands: a practice day, a newcomer, leagues."""
    return {
        # A past day replayed: its date, and where the score would have ranked that day.
        "practiceRank": gettext(
            "Practice, %(day)s: you would have ranked %(rank)s of %(total)s",
            day="{day}",
            rank="{rank}",
            total="{total}",
        ),
        # A new player's daily: its place among everyone who played; it ranks once they have
        # played on a few different days (docs/rankings.md, The ledger).
        "newcomerPlace": gettext(
            "New player: %(place)s of %(total)s today", place="{place}", total="{total}"
        ),
        "newcomerNext": gettext("your dailies rank from your next one"),
        "newcomerDay": gettext("one more day to play before your dailies rank"),
        "newcomerDays": gettext("%(n)s more days to play before your dailies rank", n="{n}"),
        # A ranked player's rank on a day some new players played too: among the ranked.
        "rankRanked": gettext(
            "Rank %(rank)s of %(total)s ranked players", rank="{rank}", total="{total}"
        ),
        # The player's place in each of their leagues, under a daily's verdict.
        "leagueRank": gettext(
            "%(name)s: rank %(rank)s of %(total)s", name="{name}", rank="{rank}", total="{total}"
        ),
        "leaguePlayed": gettext(
            "%(name)s: %(played)s of %(total)s have played",
            name="{name}",
            played="{played}",
            total="{total}",
        ),
        # Joins the clauses of the day's verdict ("Rank 2 of 5, tied with ..."): a comma and a
        # space in most languages, "、" in Japanese.
        "clauseSep": gettext(", "),
        "shared": gettext("Shared"),
        **_computer_strings(),
    }


def _computer_strings() -> dict[str, str]:
    """Against the computer: the verdict and its last turn; the day's verdict's clauses."""
    return {
        # Against the computer: the verdict with both scores.
        "youWinBy": gettext("You win, %(you)s to %(them)s", you="{you}", them="{them}"),
        "computerWinsBy": gettext(
            "The computer wins, %(them)s to your %(you)s", you="{you}", them="{them}"
        ),
        "tieBoth": gettext("A tie: %(you)s each", you="{you}"),
        # The computer's last turn, in one line over the sheet.
        "computerScored": gettext(
            "The computer scored %(points)s in %(row)s", points="{points}", row="{row}"
        ),
        # The day's verdict, honest about a board of one and about ties.
        "firstToday": gettext("You are the first to finish today's puzzle"),
        "tiedOne": gettext("tied with one other player"),
        "tiedMany": gettext("tied with %(n)s other players", n="{n}"),
    }


def result_strings() -> dict[str, str]:
    """A finished game's rank, review and verdicts against friends, then its sharing."""
    return {
        "rank": gettext("Rank %(rank)s of %(total)s", rank="{rank}", total="{total}"),
        "rankOnly": gettext("Rank %(rank)s", rank="{rank}"),
        # A game whose luck is past the clairvoyance threshold (daily/store/review_queue.py).
        "underReview": gettext(
            "Under review: this game is kept off the rankings until an operator has checked it."
        ),
        "reviewRemoved": gettext("Removed from the rankings after review."),
        # A challenge's creator hears back (static/js/challenge.js): each friend's verdict.
        "friendWins": gettext(
            "%(name)s wins: %(theirs)s to your %(mine)s.",
            name="{name}",
            theirs="{theirs}",
            mine="{mine}",
        ),
        "creatorWins": gettext(
            "You win against %(name)s: %(mine)s to %(theirs)s.",
            name="{name}",
            theirs="{theirs}",
            mine="{mine}",
        ),
        "friendTie": gettext("A tie with %(name)s: %(mine)s each.", name="{name}", mine="{mine}"),
        "friendScored": gettext("%(name)s scored %(theirs)s.", name="{name}", theirs="{theirs}"),
        "challengeCode": gettext("Challenge %(code)s", code="{code}"),
        **_sharing_strings(),
    }


def _sharing_strings() -> dict[str, str]:
    """Sharing a result, the countdown and the day's scores."""
    return {
        "puzzle": gettext("Puzzle #%(number)s", number="{number}"),
        "copied": gettext("Copied"),
        "copyFailed": gettext("Select the text and copy it"),
        "nameSaved": gettext("Saved"),
        "vs": gettext(
            "After turn %(turn)s: you %(you)s, %(name)s %(them)s",
            turn="{turn}",
            you="{you}",
            name="{name}",
            them="{them}",
        ),
        "shareText": gettext(
            "Daily Maxi Yatzy #%(number)s: %(total)s points. Play the same dice: %(link)s",
            number="{number}",
            total="{total}",
            link="{link}",
        ),
        "shareFriend": gettext(
            "I scored %(total)s at %(ruleset)s. Beat me on the same dice: %(link)s",
            total="{total}",
            ruleset="{ruleset}",
            link="{link}",
        ),
        "timeLeft": gettext("%(h)sh %(m)sm %(s)ss", h="{h}", m="{m}", s="{s}"),
        "newPuzzle": gettext("A new puzzle is out: reload the page"),
        "yourPlace": gettext("your score"),
        "playersOne": ngettext("%(n)s player", "%(n)s players", 1, n="{n}"),
        "playersMany": ngettext("%(n)s player", "%(n)s players", 2, n="{n}"),
        "yourBand": gettext(
            "Your score is in the marked band, %(low)s to %(high)s.", low="{low}", high="{high}"
        ),
    }


def hint_strings() -> dict[str, str]:
    """Computer games and the "Best move" hints."""
    return {
        "hintKeep": gettext("Keep %(dice)s", dice="{dice}"),
        "hintRollAll": gettext("Re-roll every die"),
        "hintScore": gettext("Score %(row)s", row="{row}"),
        "hintValue": gettext("expects %(value)s", value="{value}"),
        "hintLoss": gettext("%(loss)s less", loss="{loss}"),
        "theirKeep": gettext("kept %(n)s", n="{n}"),
        "theirScore": gettext("scored %(points)s in %(row)s", points="{points}", row="{row}"),
    }
