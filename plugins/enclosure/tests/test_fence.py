"""The fence backend (the boundary search, the default for enclose): its optimum and
bound against brute force on small boards, the grid model on CP-SAT, and the known
optima of oracles.md; every returned fence re-checked by the flood fill here."""

import itertools
import random

import pytest
from polytile_enclosure import enclosed_pockets
from polytile_enclosure.check import steps
from polytile_enclosure.fence import BoundarySearch, canonical, clockwise_walk

from polytile_core.plugin import Found, InputError, Region, Termination, orientations, placements
from polytile_core.testing import Host, PieceSpec, load_plan, resolve_pieces, run

MONO, DOMINO = [(0, 0)], [(0, 0), (1, 0)]
I3, L3 = [(0, 0), (1, 0), (2, 0)], [(0, 0), (1, 0), (0, 1)]


def pieces_toml(shapes: dict[str, tuple[list, int]]) -> str:
    return "".join(
        f'[[pieces]]\nname = "{name}"\ncells = {[list(c) for c in cells]}\ncount = {count}\n'
        for name, (cells, count) in shapes.items()
    )


def largest_pocket(result, neighbours) -> int:
    """The flood fill again, here in the test, on the returned fence."""
    solution = result.solutions[0]
    fence = [tuple(cell) for placed in solution.placements for cell in placed.cells]
    pockets = enclosed_pockets(fence, result.region, neighbours)
    assert sorted(solution.interior or ()) == sorted(pockets[0] if pockets else ())
    return len(pockets[0]) if pockets else 0


def brute_force(shapes: dict[str, tuple[list, int]], board: Region, neighbours: int) -> int:
    """The largest pocket over every way to put each copy on the board or leave it off."""
    choices = [
        itertools.combinations_with_replacement([(), *placements(orientations(cells), board)], count)
        for cells, count in shapes.values()
    ]
    best = 0
    for chosen in itertools.product(*map(list, choices)):
        fence = [cell for copies in chosen for placed in copies for cell in placed]
        if len(set(fence)) == len(fence) and len(fence) >= 4:
            pockets = enclosed_pockets(fence, board.cells, neighbours)
            best = max([best] + [len(pocket) for pocket in pockets])
    return best


@pytest.mark.parametrize(
    "shapes, width, height, neighbours",
    [
        ({"I": (I3, 1), "L": (L3, 1), "D": (DOMINO, 1)}, 4, 4, 8),
        ({"I": (I3, 1), "L": (L3, 1), "D": (DOMINO, 1)}, 4, 4, 4),
        ({"M": (MONO, 4)}, 4, 4, 4),
        ({"M": (MONO, 4)}, 4, 4, 8),
        ({"L": (L3, 2), "M": (MONO, 1)}, 4, 4, 8),
        ({"L": (L3, 2), "D": (DOMINO, 1)}, 4, 5, 4),
        ({"I": (I3, 2), "D": (DOMINO, 1)}, 5, 4, 8),
    ],
)
def test_the_proved_optimum_is_the_brute_force_optimum(solve, shapes, width, height, neighbours):
    # The bound can never be below a real fence: a wrong "proof" fails here.
    expected = brute_force(shapes, Region.rectangle(width, height), neighbours)
    body = pieces_toml(shapes) + f"[options.enclose]\nneighbours = {neighbours}\nwidth = {width}\nheight = {height}\n"
    result = solve(body)
    assert result.backend == "fence"
    assert (result.found, result.objective, result.bound) == (Found.OPTIMAL, expected, expected)
    if expected:
        assert largest_pocket(result, neighbours) == expected


def test_the_grid_model_on_cpsat_agrees_on_a_small_board(solve):
    shapes = pieces_toml({"I": (I3, 1), "L": (L3, 2), "D": (DOMINO, 1)})
    answers = {}
    for backend in ("fence", "cpsat"):
        body = (
            shapes
            + '[options.enclose]\nscore = "region"\nwidth = 5\nheight = 4\n'
            + f'[solve]\nbackend = "{backend}"\nworkers = 2\n'
        )
        result = solve(body)
        assert result.found == Found.OPTIMAL, backend
        answers[backend] = (result.objective, result.bound)
    assert answers["fence"] == answers["cpsat"]


@pytest.mark.parametrize("neighbours, optimum", [(8, 9), (4, 15)])
def test_tetrominoes_proved_on_the_board_that_holds_every_fence(solve, neighbours, optimum):
    # oracles.md: 9 (classic rule); 15 under the 4-neighbour rule (docs/enclosure.md).
    result = solve(f'[[pieces]]\nfamily = "tetrominoes"\n[options.enclose]\nneighbours = {neighbours}\n')
    assert (result.termination, result.found, result.objective, result.bound) == (
        Termination.COMPLETED,
        Found.OPTIMAL,
        optimum,
        optimum,
    )
    assert "warning" not in result.details
    assert result.details["bound proof"].startswith("boundary dynamic program")
    assert largest_pocket(result, neighbours) == optimum


@pytest.mark.parametrize("neighbours", [8, 4])
def test_furmaneks_instance_is_proved_and_its_fence_fits_the_board(solve, neighbours):
    body = (
        '[[pieces]]\nfamily = "n-ominoes"\nn = 4\nkind = "one-sided"\n'
        f"[options.enclose]\nneighbours = {neighbours}\nwidth = 11\nheight = 9\n"
    )
    result = solve(body)
    assert result.found == Found.OPTIMAL and result.objective == result.bound
    assert all(0 <= x < 11 and 0 <= y < 9 for placed in result.solutions[0].placements for x, y in placed.cells)
    assert largest_pocket(result, neighbours) == result.objective
    # Independent lower bounds: CP-SAT's grid model found 25 and 34 on this board (issue 19).
    assert result.objective >= {8: 25, 4: 34}[neighbours]


def test_a_board_too_small_for_the_best_fence_gets_the_best_that_fits(solve):
    # The 9 fence needs a 6 × 6 box at least; on 5 × 5 the brute force finds the best that fits.
    shapes = {"L": (L3, 2), "D": (DOMINO, 1)}
    expected = brute_force(shapes, Region.rectangle(4, 4), 8)
    result = solve(pieces_toml(shapes) + "[options.enclose]\nwidth = 4\nheight = 4\n")
    assert (result.found, result.objective, result.bound) == (Found.OPTIMAL, expected, expected)


def test_too_many_pieces_for_the_tables_is_a_clear_error():
    hexominoes = resolve_pieces([PieceSpec(family="n-ominoes", n=6)], Host())
    with pytest.raises(InputError, match='use backend = "cpsat"'):
        BoundarySearch(hexominoes, 8)


def test_the_fence_route_never_writes_the_grid_model(solve, monkeypatch):
    # The fence backend reads the builder's statement alone; a set it cannot take is
    # refused before any grid (35 hexominoes: 0.4 s instead of 27 s and 2.9 GB).
    def no_grid(*args):
        raise AssertionError("the grid model was written for the fence backend")

    monkeypatch.setattr("polytile_enclosure.model._write_grid", no_grid)
    result = solve('[[pieces]]\nfamily = "tetrominoes"\n')
    assert (result.backend, result.found, result.objective) == ("fence", Found.OPTIMAL, 9)
    assert largest_pocket(result, 8) == 9
    ring = '[[pieces]]\nname = "O"\nshape = ["###", "#.#", "###"]\n'
    with pytest.raises(InputError, match="piece 'O': the piece has a hole; use backend = \"cpsat\""):
        solve(ring)


def test_score_pockets_is_refused_with_a_clear_error(solve):
    body = '[[pieces]]\nfamily = "tetrominoes"\n[options.enclose]\nscore = "pockets"\n'
    with pytest.raises(InputError, match='score = "pockets" needs an ILP backend'):
        solve(body)


def test_the_fence_backend_refuses_a_tiling(tmp_path, host):
    path = tmp_path / "tiling.toml"
    path.write_text(
        '[region]\nwidth = 2\nheight = 2\n[[pieces]]\nname = "D"\nshape = ["##"]\nunlimited = true\n'
        '[solve]\nbackend = "fence"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match='solves problem = "enclose" only'):
        run(load_plan(path, host))


def test_a_piece_with_a_hole_or_a_pinch_is_refused():
    ring = [(x, y) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    with pytest.raises(ValueError, match="hole"):
        clockwise_walk(ring)
    pinched = [(0, 0), (1, 1), (2, 1), (2, 0), (2, -1), (1, -1), (0, -1)]  # (0, 0) and (1, 1) meet at a corner
    with pytest.raises(ValueError, match="corner"):
        clockwise_walk(pinched)


def test_the_upper_bound_of_the_dynamic_program_is_at_least_every_fence_it_lists():
    # Listing every fence of the top level: each is a real fence (the flood fill agrees).
    tetrominoes = resolve_pieces([PieceSpec(family="tetrominoes")], Host())
    listed = []
    outcome = BoundarySearch(tetrominoes, 8).solve(every=listed.append)
    assert outcome.proved and outcome.bound == 9 and outcome.listed == len(listed) > 1
    for fenced in listed:
        fence = [cell for _, cells in fenced.placements for cell in cells]
        box = {(x, y) for x in range(-20, 21) for y in range(-20, 21)}
        assert enclosed_pockets(fence, box, 8)[0] == fenced.pocket  # the C flood fill agrees


def brute_force_optimal_fences(shapes: dict[str, tuple[list, int]], board: Region, neighbours: int):
    """The optimum on the board and its fences up to translation, rotation and reflection:
    every way to put each copy on the board or leave it off, where every piece put down
    touches the largest pocket (the others would be parked: they are not part of its fence)."""
    copies = [(name, cells) for name, (cells, count) in shapes.items() for _ in range(count)]
    choices = [placements(orientations(cells), board) for _, cells in copies]
    best, classes = 0, set()

    def extend(k: int, used: list, taken: set) -> None:
        nonlocal best, classes
        if k < len(copies):
            extend(k + 1, used, taken)  # this copy left off
            for placed in choices[k]:
                if taken.isdisjoint(placed):
                    extend(k + 1, [*used, (copies[k][0], placed)], taken | set(placed))
            return
        pockets = enclosed_pockets(taken, board.cells, neighbours) if taken else []
        if not pockets or len(pockets[0]) < best:
            return
        ring = {(x + dx, y + dy) for x, y in pockets[0] for dx, dy in steps(neighbours)}
        if all(ring.intersection(placed) for _, placed in used):
            if len(pockets[0]) > best:
                best, classes = len(pockets[0]), set()
            classes.add(canonical(used, range(8)))

    extend(0, [], set())
    return best, len(classes)


@pytest.mark.parametrize("neighbours, at_least", [(8, 10), (4, 2)])
def test_list_optimal_streams_every_optimal_fence_once_per_class(solve, neighbours, at_least):
    shapes = {"I": (I3, 1), "L": (L3, 1), "D": (DOMINO, 1), "M": (MONO, 1)}
    best, classes = brute_force_optimal_fences(shapes, Region.rectangle(4, 4), neighbours)
    assert classes >= at_least  # (13 and 4 today): a listing of one fence would prove little
    body = pieces_toml(shapes) + f"[options.enclose]\nneighbours = {neighbours}\nwidth = 4\nheight = 4\n"
    result = solve(body + "list_optimal = true\n[solve]\nkeep = 1000\n")
    assert (result.found, result.objective, result.count, len(result.solutions)) == (
        Found.OPTIMAL,
        best,
        classes,
        classes,
    )
    for solution in result.solutions:
        fence = [tuple(cell) for placed in solution.placements for cell in placed.cells]
        assert sorted(enclosed_pockets(fence, result.region, neighbours)[0]) == sorted(solution.interior)


def test_list_optimal_on_the_grid_model_is_refused(solve):
    body = '[[pieces]]\nfamily = "tetrominoes"\n[options.enclose]\nlist_optimal = true\n[solve]\nbackend = "cpsat"\n'
    with pytest.raises(InputError, match="list_optimal lists fences with the fence backend"):
        solve(body)


@pytest.mark.slow
def test_every_optimal_pentomino_fence_is_listed(solve):
    # "Optimal Polyomino Fences" (Brömme et al.) report 5,760 optimal fences up to symmetry.
    result = solve('[[pieces]]\nfamily = "pentominoes"\n[options.enclose]\nlist_optimal = true\n[solve]\nworkers = 2\n')
    assert (result.found, result.objective, result.count) == (Found.OPTIMAL, 128, 5760)


@pytest.mark.slow
def test_the_best_pocket_of_every_k_subset_of_the_pentominoes():
    # "Optimal Polyomino Fences" (Brömme et al.): the best areas for 2 ... 12 free pentominoes.
    published = [1, 6, 13, 24, 34, 47, 62, 78, 94, 111, 128]
    search = BoundarySearch(resolve_pieces([PieceSpec(family="pentominoes")], Host()), 8)
    computed = []
    for k in range(2, 13):
        outcome = search.solve(most_pieces=k, workers=2)
        assert outcome.proved and all(len(fenced.placements) <= k for fenced in outcome.fences)
        computed.append(len(outcome.fences[0].pocket))
    assert computed == published


@pytest.mark.slow
def test_pentominoes_enclose_128_proved(solve):
    # oracles.md: Knuth's 128, proved optimal.  About 30 s on 2 cores.
    result = solve('[[pieces]]\nfamily = "pentominoes"\n[solve]\nworkers = 2\n')
    assert (result.found, result.objective, result.bound) == (Found.OPTIMAL, 128, 128)
    assert largest_pocket(result, 8) == 128


def test_where_the_scores_differ_two_rooms_beat_one(solve):
    # Two E-shaped octominoes close two rooms of 2 cells side by side (4 cells in all, the
    # pockets score of the grid model) but no single room of more than 2 (the region
    # score, the classic definition, which the fence backend proves).
    piece = '[[pieces]]\nname = "E"\nshape = ["##", "#.", "##", "#.", "##"]\ncount = 2\n'
    answers = {}
    for backend, score in (("fence", "region"), ("cpsat", "pockets")):
        body = piece + f'[options.enclose]\nscore = "{score}"\nwidth = 6\nheight = 7\n[solve]\nbackend = "{backend}"\n'
        result = solve(body)
        assert result.found == Found.OPTIMAL
        answers[score] = result.objective
    assert answers == {"region": 2, "pockets": 4}


@pytest.mark.parametrize("neighbours", [8, 4])
def test_the_tables_filled_on_several_threads_are_those_of_one(neighbours):
    """Each thread fills its own subsets of one size from those one smaller: two or three
    threads must give every closed cycle's value that one thread gives."""
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    pool = resolve_pieces([PieceSpec(family="n-ominoes", n=4, kind=rng.choice(["free", "one-sided"]))], Host())
    pieces = rng.sample(pool, rng.randint(4, len(pool)))
    search = BoundarySearch(pieces, neighbours)
    for first, start in [(0, 0), (1, 0)]:
        alone = search.fence.dp(first, start, 0.0, 1)
        assert search.fence.dp(first, start, 0.0, rng.choice([2, 3])) == alone, f"seed {seed}"
