"""Mate claims decided by proof: true, false or undecided, and never a guess.

A claim is "the side to move (the attacker) mates within ``n`` moves whatever the defence". Only two
things decide it:

* **proven** by a *solution tree*: at every attacker node one attacking move, at every defender node
  *every* legal defence, each branch ending in checkmate within the count;
* **refuted** by a *defence tree*: for every attacking move a defence after which the attacker has
  no mate within what is left (recursively, down to "no move mates at once").

Both are found by an exhaustive AND-OR search over python-chess's legal moves; a move proposed by the
source's line or by the engine (``kb.analysis.engine``) is only tried first. The search spends at most
a node budget (pushes of a move); when it runs out the answer is **undecided**, never "false": a budget
decides how long we try, never the verdict. ``check_tree`` replays a solution tree against python-chess
on its own (every defence enumerated again), so a stored tree is a proof anyone can rerun.

The *exact length* of a proven claim is the least ``k`` with a proven mate within ``k`` whose
``k - 1`` is refuted; when the shorter refutation does not fit the budget the length is only an upper
bound (``MateProof.minimal`` false) and the importer says so instead of asserting a class.

A draw the defender can claim by the fifty-move rule ends a branch as a survival; repetition cannot
save the defender within five moves of a forced mate (a position must occur three times) and is
ignored.

>>> import chess
>>> proof = prove_mate(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), 2)
>>> proof.verdict, proof.shortest, proof.minimal, proof.first_moves
('proven', 1, True, ('a1a8',))
>>> prove_mate(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), 3, budget=1).verdict
'undecided'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final, Literal

import chess

#: What deciding a claim gives: proven or refuted, each by a tree anyone can replay, or undecided (the budget ran out).
Verdict = Literal["proven", "refuted", "undecided"]
PROVEN: Final = "proven"
REFUTED: Final = "refuted"
UNDECIDED: Final = "undecided"
VERDICTS: tuple[Verdict, ...] = (PROVEN, REFUTED, UNDECIDED)

#: Nodes (moves pushed) one claim may cost, proof of the claim and of its exact length together. A mate
#: in three with its "no mate in two" costs a few thousand; a hard refutation of a mate in four can need
#: millions, and stays undecided instead.
NODE_BUDGET = 400_000
#: Nodes spent listing every first move that mates: each other first move needs its own refutation (a
#: mate in two: some 800 nodes; a mate in three: some 35,000, a second in python-chess), so beyond this the
#: list is left out and the trainer asks the server about the learner's move instead.
FIRST_MOVES_BUDGET = 3_000
#: The longest mate whose first moves are listed: a mate in three's list does not fit the budget (it would
#: be spent in vain on every claim: two thirds of a mate in three's proof cost).
FIRST_MOVES_MAX_LENGTH = 2
#: The stored solution tree's size limit, in nodes: a mate in five can branch into hundreds of
#: thousands of defences (a mate in three: about a thousand). A larger tree is proved at import but not stored.
TREE_MAX_NODES = 5_000
#: How many times one search may ask the proposer (the engine: a UCI round trip of up to
#: ``verify.PROPOSAL_NODES`` each) for a move to try first. Proposals only order moves, so the cap changes
#: no verdict; without it a claim that ends undecided asked the engine at every attacker node until the
#: node budget ran out (a king-and-rook "mate in 14" took 77 s of import with stockfish, 6 s without).
PROPOSALS_MAX = 64

#: A solution tree: attacker move (UCI) -> {defence (UCI) -> the attacker's subtree}; ``{}`` after the mating move.
Tree = dict[str, "Tree"]
#: Proposes moves to try first at an attacker node (the engine's best moves, the source's line).
Proposer = Callable[[chess.Board, int], list[chess.Move]]


class BudgetSpent(Exception):
    """The node budget ran out: the question stays undecided."""


@dataclass(frozen=True)
class MateProof:
    """What the search proved about "the side to move mates within ``claimed``".

    ``shortest``: the least length proven to mate (``None`` unless proven); ``minimal``: ``shortest`` is
    exact (one less was refuted); ``first_moves``: every first move proven to mate within ``claimed``
    (empty when some first move stayed undecided: the list would not be complete); ``tree``: a solution
    tree for ``shortest`` (``None`` when refuted, undecided or larger than ``TREE_MAX_NODES``).
    """

    verdict: Verdict
    claimed: int
    shortest: int | None = None
    minimal: bool = False
    first_moves: tuple[str, ...] = ()
    tree: Tree | None = None
    nodes: int = 0

    @property
    def exact(self) -> int | None:
        """The proven exact length, or None."""
        return self.shortest if self.verdict == PROVEN and self.minimal else None


def _line_masks() -> tuple[list[int], list[int]]:
    """Per square: every square on a rank, file or diagonal through it, and that or a knight's jump."""
    lines, reach = [], []
    for square in chess.SQUARES:
        line = chess.BB_RANK_ATTACKS[square][0] | chess.BB_FILE_ATTACKS[square][0] | chess.BB_DIAG_ATTACKS[square][0]
        lines.append(line)
        reach.append(line | chess.BB_KNIGHT_ATTACKS[square])
    return lines, reach


_LINES, _REACH = _line_masks()


def _may_check(board: chess.Board, move: chess.Move, king: int) -> bool:
    """Cheap superset of the moves that give check: the piece lands where a queen or knight on the king's
    square would see it, or leaves a line through the king (a discovery), or the move is special. It orders
    the attacker's moves (checks first); ``_check_candidates`` is the finer filter where only checks count."""
    return bool(
        chess.BB_SQUARES[move.to_square] & _REACH[king]
        or chess.BB_SQUARES[move.from_square] & _LINES[king]
        or move.promotion
        or board.is_castling(move)
        or board.is_en_passant(move)
    )


def _check_landings(board: chess.Board, king: int) -> tuple[list[int], int, int]:
    """Per square of the side to move: where its piece must land to give check to ``king``, as a bitboard;
    with the squares whose piece may land somewhere, and the union of the landings (python-chess's move
    generation takes them as masks, so moves outside are never even made).

    Why no check is missed (the defender not in check before the move: ``_check_candidates`` sees to
    that): after the move the king is attacked either by the piece that moved, or by a piece whose line
    to the king the move opened. A move fills only its target square and empties only its own square,
    besides the pawn taken en passant and the rook of a castling. So:

    * a *direct* check: a piece of the mover's kind on the target sees the king through today's occupancy.
      The emptied square could lie between only if the mover moved along the line away from the king; a
      piece that sees along that line saw the king from there already (the defender was in check), one
      that does not sees it from neither square. A promotion changes the kind: its landing only needs to
      be on a line through the king or a knight's jump from it, whatever stands between;
    * a *discovery*: the emptied square was the only piece between the king and one of the mover's side's
      rooks, bishops or queens on a line through it (a "discoverer": any landing);
    * en passant lands on the en-passant square (always kept); castling is left to ``_check_candidates``
      (a king's landings are otherwise empty: a king gives no check itself).

    Every mask lies inside ``_may_check``'s, so the moves tried are a subset of those tried before, in
    the same order. python-chess's own attack tables, nothing more."""
    occupied = board.occupied
    ours = board.occupied_co[board.turn]
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    straight = (
        chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
        | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied]
    )
    knight = chess.BB_KNIGHT_ATTACKS[king]
    pawn = chess.BB_PAWN_ATTACKS[not board.turn][king] | ((knight | _LINES[king]) & chess.BB_BACKRANKS)
    if board.ep_square is not None:
        pawn |= chess.BB_SQUARES[board.ep_square]
    by_type = {
        chess.PAWN: pawn,
        chess.KNIGHT: knight,
        chess.BISHOP: diagonal,
        chess.ROOK: straight,
        chess.QUEEN: diagonal | straight,
        chess.KING: 0,
    }
    landings = [0] * 64
    movers = targets = 0
    for piece_type, mask in by_type.items():
        pieces = board.pieces_mask(piece_type, board.turn)
        if mask and pieces:
            movers, targets = movers | pieces, targets | mask
            for square in chess.scan_reversed(pieces):
                landings[square] = mask
    snipers = (
        (chess.BB_RANK_ATTACKS[king][0] | chess.BB_FILE_ATTACKS[king][0]) & (board.rooks | board.queens)
        | chess.BB_DIAG_ATTACKS[king][0] & (board.bishops | board.queens)
    ) & ours
    for sniper in chess.scan_reversed(snipers):
        between = chess.between(king, sniper) & occupied
        if between & ours and not between & (between - 1):  # exactly one piece between, and it is ours
            landings[chess.msb(between)] = chess.BB_ALL
            movers, targets = movers | between, chess.BB_ALL
    return landings, movers, targets


def _check_candidates(board: chess.Board, king: int) -> list[chess.Move]:
    """The legal moves that may give check, in python-chess's order (``_check_landings``): a mate in one is
    among them. A position whose defender is already in check (not reachable by legal moves, only as a
    given root) keeps the coarser ``_may_check`` filter: there a move that gives no new check may mate."""
    if board.was_into_check():
        return [m for m in board.generate_pseudo_legal_moves() if _may_check(board, m, king) and board.is_legal(m)]
    landings, movers, targets = _check_landings(board, king)
    squares = chess.BB_SQUARES
    castler = board.king(board.turn) if board.castling_rights & board.occupied_co[board.turn] else None
    if castler is not None:
        movers, targets = movers | squares[castler], chess.BB_ALL
    return [
        move
        for move in board.generate_pseudo_legal_moves(movers, targets)
        if (
            squares[move.to_square] & landings[move.from_square]
            or (move.from_square == castler and board.is_castling(move))
        )
        and not board.is_into_check(move)
    ]


class MateSearch:
    """The AND-OR search with its memo (positions known to mate within k, or known not to), one budget.

    One instance may answer several questions about related positions (a claim, its exact length, the
    trainer's follow-up moves): the memo is shared and only grows truer.
    """

    def __init__(self, budget: int = NODE_BUDGET, proposer: Proposer | None = None) -> None:
        self.budget = budget
        self.nodes = 0
        self.proposer = proposer
        self.proposals_left = PROPOSALS_MAX
        self._mates: dict[object, int] = {}  # key -> least k known to mate within
        self._survives: dict[object, int] = {}  # key -> greatest k known not to mate within
        # the last move that decided a node with k moves left, tried first at its siblings ("killers": the
        # same mate or the same escape usually answers many neighbouring positions)
        self._attack_killers: dict[int, chess.Move] = {}
        self._defence_killers: dict[int, chess.Move] = {}

    def mates_within(self, board: chess.Board, k: int, first: chess.Move | None = None) -> bool | None:
        """Whether the side to move mates within ``k`` moves against every defence; None when the budget ran out."""
        try:
            return self._attack(board, k, first)
        except BudgetSpent:
            return None

    def defended_mates_within(self, board: chess.Board, k: int) -> bool | None:
        """With the defender to move: whether every defence still loses to a mate within ``k``; None: undecided."""
        try:
            return self._defend(board, k)
        except BudgetSpent:
            return None

    def allow(self, nodes: int) -> None:
        """Grant ``nodes`` more from now (one budget per question asked of the same memo)."""
        self.budget = self.nodes + nodes

    def _spend(self) -> None:
        self.nodes += 1
        if self.nodes > self.budget:
            raise BudgetSpent

    @staticmethod
    def _memo_key(board: chess.Board, k: int) -> object:
        """The memo's key for "the side to move mates within ``k``" here: the position, and the fifty-move
        clock only where it can end a line within ``k`` moves. Below that (clock + 2k < 100) no node of the
        search reaches a claimable draw, so the answer is the same at every such clock and is shared; at or
        above it the answer depends on the clock (a quiet mate in two at clock 99 lets the defender claim
        the draw), so it is kept for that clock alone."""
        clock = board.halfmove_clock
        return board._transposition_key(), (clock if clock + 2 * k >= 100 else None)

    def _attack(self, board: chess.Board, k: int, first: chess.Move | None = None) -> bool:
        key = self._memo_key(board, k)
        if self._mates.get(key, k + 1) <= k:
            return True
        if self._survives.get(key, 0) >= k:
            return False
        for move in self._attacks(board, k, first):
            self._spend()
            board.push(move)
            try:
                if board.is_checkmate() or (k > 1 and self._defend(board, k - 1)):
                    self._mates[key] = min(k, self._mates.get(key, k))
                    self._attack_killers[k] = move
                    return True
            finally:
                board.pop()
        self._survives[key] = max(k, self._survives.get(key, 0))
        return False

    def _defend(self, board: chess.Board, k: int) -> bool:
        if board.halfmove_clock >= 100:
            return False  # the defender claims the draw
        killer = self._defence_killers.get(k)
        if killer is not None and board.is_legal(killer):
            # tried before the other defences are listed: when it refutes (it often does) they never are
            if self._survives_after(board, killer, k):
                return False
        else:
            killer = None
        defences = self._defences(board, killer)
        if not defences and killer is None:
            return False  # stalemate (a checkmate was seen before)
        return not any(self._survives_after(board, defence, k) for defence in defences)

    def _survives_after(self, board: chess.Board, defence: chess.Move, k: int) -> bool:
        """Whether the attacker has no mate within ``k`` after ``defence`` (a refutation: the killer next time)."""
        self._spend()
        board.push(defence)
        try:
            if self._attack(board, k):
                return False
        finally:
            board.pop()
        self._defence_killers[k] = defence
        return True

    def _attacks(
        self, board: chess.Board, k: int, first: chess.Move | None, *, propose: bool = True
    ) -> Iterator[chess.Move]:
        """Legal attacking moves, likeliest mates first: ``first``, the proposer's, checks, captures, the rest.
        With one move left only a check can mate. ``propose``: ask the proposer (not for a position proven
        already: it would only reorder moves whose answers the memo holds)."""
        king = board.king(not board.turn)
        if king is None:
            return iter(())
        killer = self._attack_killers.get(k)
        if k == 1:  # only a check can mate; legality tested only for the few moves that may check
            checks = _check_candidates(board, king)
            if killer in checks:
                checks.remove(killer)
                checks.insert(0, killer)
            return iter(checks)
        legal = list(board.legal_moves)
        checks, captures, quiet = [], [], []
        for move in legal:
            if _may_check(board, move, king):
                checks.append(move)
            elif board.is_capture(move):
                captures.append(move)
            else:
                quiet.append(move)
        return self._first_proposed(board, k, first, killer, legal, checks + captures + quiet, propose)

    def _first_proposed(
        self,
        board: chess.Board,
        k: int,
        first: chess.Move | None,
        killer: chess.Move | None,
        legal: list[chess.Move],
        rest: list[chess.Move],
        propose: bool,
    ) -> Iterator[chess.Move]:
        """``first``, the proposer's moves, the killer, then ``rest``: each legal move once. The proposer is
        asked only when ``first`` did not decide the node (the search stops at the first mating move), so
        a claim whose line's first move mates costs no round trip to the engine; the order is the same."""
        legal_set = set(legal)
        tried: set[chess.Move] = set()

        def leading() -> Iterator[chess.Move]:
            if first is not None:
                yield first
            if propose:
                yield from self._proposed(board, k)
            if killer is not None:
                yield killer

        for move in itertools.chain(leading(), rest):
            if move in legal_set and move not in tried:
                tried.add(move)
                yield move

    def _proposed(self, board: chess.Board, k: int) -> list[chess.Move]:
        """The proposer's moves, while ``PROPOSALS_MAX`` allows (the ordering they buy is worth a round trip
        near the root, where most of the search is decided, not at every node of a hopeless search)."""
        if self.proposer is None or self.proposals_left <= 0:
            return []
        self.proposals_left -= 1
        return self.proposer(board, k)

    @staticmethod
    def _defences(board: chess.Board, tried: chess.Move | None) -> list[chess.Move]:
        """Every legal defence but ``tried`` (the killer, tried already): the king's moves and captures
        first (they refute most often), each group in python-chess's order."""
        king = board.king(board.turn)
        king_moves, captures, rest = [], [], []
        for move in board.generate_legal_moves():
            if move == tried:
                continue
            if move.from_square == king:
                king_moves.append(move)
            elif board.is_capture(move):
                captures.append(move)
            else:
                rest.append(move)
        return king_moves + captures + rest

    # --- what a proof looks like ---------------------------------------------------------------

    def tree(self, board: chess.Board, k: int, limit: int = TREE_MAX_NODES) -> Tree | None:
        """A solution tree for a position proven to mate within ``k`` (None when larger than ``limit``).
        Each attacker node takes its fastest mate (so a defence's subtree depth is its resilience)."""
        size = [0]

        def attacker(node: chess.Board, left: int) -> Tree:
            for j in range(1, left + 1):
                if j == left or self.mates_within(node, j):
                    break
            for move in self._attacks(node, j, None, propose=False):
                node.push(move)
                try:
                    if node.is_checkmate():
                        return {move.uci(): {}}
                    if j > 1 and self._defend(node, j - 1):
                        return {move.uci(): defender(node, j - 1)}
                finally:
                    node.pop()
            raise AssertionError("tree asked of a position not proven")  # pragma: no cover

        def defender(node: chess.Board, left: int) -> Tree:
            out: Tree = {}
            for defence in node.legal_moves:
                size[0] += 1
                if size[0] > limit:
                    raise BudgetSpent
                node.push(defence)
                try:
                    out[defence.uci()] = attacker(node, left)
                finally:
                    node.pop()
            return out

        try:
            return attacker(board.copy(stack=False), k)
        except BudgetSpent:
            return None


def prove_mate(
    board: chess.Board,
    claimed: int,
    first: chess.Move | None = None,
    *,
    budget: int = NODE_BUDGET,
    proposer: Proposer | None = None,
) -> MateProof:
    """Decide "the side to move mates within ``claimed``"; when proven, also its exact length, every mating
    first move and a solution tree. Each of the three steps (verdict, exact length, first moves and tree)
    may spend ``budget`` nodes (the first moves at most ``FIRST_MOVES_BUDGET``, and only for claims up to
    ``FIRST_MOVES_MAX_LENGTH``): the exact length never costs the verdict."""
    search = MateSearch(budget, proposer)
    work = board.copy(stack=False)
    found = search.mates_within(work, claimed, first)
    if found is None:
        return MateProof(UNDECIDED, claimed, nodes=search.nodes)
    if not found:
        return MateProof(REFUTED, claimed, nodes=search.nodes)
    search.allow(budget)
    shortest, minimal = _shortest(search, work, claimed)
    first_moves: tuple[str, ...] = ()
    if claimed <= FIRST_MOVES_MAX_LENGTH:
        search.allow(min(budget, FIRST_MOVES_BUDGET))
        first_moves = _first_moves(search, work, claimed)
    search.allow(budget)
    tree = search.tree(work, shortest)
    return MateProof(PROVEN, claimed, shortest, minimal, first_moves, tree, search.nodes)


def _shortest(search: MateSearch, board: chess.Board, claimed: int) -> tuple[int, bool]:
    """The least proven length and whether it is exact (every shorter one refuted). Short questions first:
    they are cheap, and a refuted length proves every shorter one refuted too."""
    for length in range(1, claimed):
        answer = search.mates_within(board, length)
        if answer is None:
            return claimed, False  # a shorter mate may exist: ``claimed`` stays an upper bound
        if answer:
            return length, True
    return claimed, True


def _first_moves(search: MateSearch, board: chess.Board, k: int) -> tuple[str, ...]:
    """Every first move that mates within ``k`` (empty when one of them stays undecided)."""
    out = []
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                out.append(move.uci())
                continue
            if k == 1:
                continue
            answer = search.defended_mates_within(board, k - 1)
        finally:
            board.pop()
        if answer is None:
            return ()
        if answer:
            out.append(move.uci())
    return tuple(sorted(out))


def check_tree(board: chess.Board, tree: Tree, k: int) -> bool:
    """Replay ``tree`` (attacker to move on ``board``): one legal attacking move per attacker node, every
    legal defence at every defender node, every branch ending in checkmate within ``k`` moves."""
    if len(tree) != 1 or k < 1:
        return False
    ((uci, replies),) = tree.items()
    move = chess.Move.from_uci(uci)
    if move not in board.legal_moves:
        return False
    after = board.copy(stack=False)
    after.push(move)
    if after.is_checkmate():
        return replies == {}
    if k == 1 or after.halfmove_clock >= 100 or set(replies) != {m.uci() for m in after.legal_moves}:
        return False
    for defence, subtree in replies.items():
        node = after.copy(stack=False)
        node.push(chess.Move.from_uci(defence))
        if not check_tree(node, subtree, k - 1):
            return False
    return True


def tree_depth(tree: Tree) -> int:
    """The attacker's moves the tree needs at most (the mate's length along its longest defence)."""
    ((_, replies),) = tree.items()
    return 1 + max((tree_depth(subtree) for subtree in replies.values()), default=0)


#: Nodes one trainer question may cost (``judge_move``): a learner's move in a mate in three is judged
#: in a few thousand; beyond this the answer is "undecided" and the move is neither praised nor refused.
JUDGE_NODES = 60_000
#: The longest remaining mate the trainer asks about (the classes end at mate in five).
JUDGE_MAX_LEFT = 5


@dataclass(frozen=True)
class Judgement:
    """A learner's attacking move, judged: does the forced mate within ``left`` still hold after it?

    ``verdict``: proven (every defence still loses within ``left - 1``, or the move mates), refuted (a
    defence survives: the proof is that defence) or undecided (the budget ran out). ``reply``: the most
    resilient defence when proven and not mate (the one whose mate takes longest, python-chess's move
    order among equals); ``reply_left``: the attacker's moves left after it."""

    verdict: Verdict
    mate: bool = False
    reply: chess.Move | None = None
    reply_left: int = 0


def judge_move(board: chess.Board, move: chess.Move, left: int, *, budget: int = JUDGE_NODES) -> Judgement:
    """Judge the attacker's ``move`` on ``board`` when a mate within ``left`` is to be kept (the trainer's
    rule: any move that keeps the forced mate within the count is right, not only the stored line's)."""
    if not 1 <= left <= JUDGE_MAX_LEFT or move not in board.legal_moves:
        raise ValueError(f"no legal move {move.uci()} with 1 to {JUDGE_MAX_LEFT} moves left")
    after = board.copy(stack=False)
    after.push(move)
    if after.is_checkmate():
        return Judgement(PROVEN, mate=True)
    if left == 1:
        return Judgement(REFUTED)
    search = MateSearch(budget)
    holds = search.defended_mates_within(after, left - 1)
    if holds is None:
        return Judgement(UNDECIDED)
    if not holds:
        return Judgement(REFUTED)
    reply, longest = None, 0
    for defence in list(after.legal_moves):
        after.push(defence)
        try:
            # the least length that mates after this defence (proven within ``left - 1`` already)
            needed = next((j for j in range(1, left - 1) if search.mates_within(after, j)), left - 1)
        finally:
            after.pop()
        if needed > longest:
            reply, longest = defence, needed
    return Judgement(PROVEN, reply=reply, reply_left=longest)
