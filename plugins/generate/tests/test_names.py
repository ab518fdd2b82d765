"""Names: the conventional letters for n <= 5, a numbered scheme beyond, suffixes for
mirror images (') and clockwise turns (@90, @180, @270)."""

from polytile_generate import n_ominoes

from polytile_core.plugin import CLASSIC_FAMILIES, cells_from_rows, normalise, orientations


def test_pentominoes_and_tetrominoes_keep_their_letters_and_pictures():
    for n, family in ((4, "tetrominoes"), (5, "pentominoes")):
        expected = {name: normalise(cells_from_rows(rows)) for name, rows in CLASSIC_FAMILIES[family].items()}
        assert dict(n_ominoes(n)) == expected


def test_the_twelve_free_pentominoes_have_63_fixed_orientations():
    pentominoes = n_ominoes(5)
    assert sum(len(orientations(cells, "free")) for _, cells in pentominoes) == 63
    assert len(n_ominoes(5, "fixed")) == 63


def test_one_sided_pentominoes_prime_the_six_chiral_letters():
    names = [name for name, _ in n_ominoes(5, "one-sided")]
    chiral = {"F", "L", "N", "P", "Y", "Z"}  # the pentominoes without a mirror symmetry
    assert sorted(names) == sorted(list("FILNPTUVWXYZ") + [f"{letter}'" for letter in chiral])
    shapes = dict(n_ominoes(5, "one-sided"))
    for letter in chiral:
        mirrored = normalise((-x, y) for x, y in shapes[letter])
        assert shapes[f"{letter}'"] == mirrored


def test_fixed_names_are_clockwise_turns():
    shapes = dict(n_ominoes(4, "fixed"))
    assert sorted(name for name in shapes if name.startswith("L")) == [
        "L",
        "L'",
        "L'@180",
        "L'@270",
        "L'@90",
        "L@180",
        "L@270",
        "L@90",
    ]

    def turn(cells):  # clockwise with y downward
        return normalise((-y, x) for x, y in cells)

    assert shapes["L@90"] == turn(shapes["L"])
    assert shapes["L@180"] == turn(shapes["L@90"])
    assert shapes["L'@270"] == turn(turn(turn(shapes["L'"])))
    assert "I@180" not in shapes and "O@90" not in shapes and "X" not in shapes


def test_hexominoes_are_numbered_in_canonical_order():
    pieces = n_ominoes(6)
    assert [name for name, _ in pieces] == [f"P6-{k:02d}" for k in range(1, 36)]
    canonical = [min(orientations(cells, "free")) for _, cells in pieces]
    assert canonical == sorted(canonical)
    assert [cells for _, cells in pieces] == canonical


def test_names_are_stable_across_kinds():
    free = {name for name, _ in n_ominoes(6)}
    one_sided = {name.rstrip("'") for name, _ in n_ominoes(6, "one-sided")}
    fixed = {name.split("@")[0].rstrip("'") for name, _ in n_ominoes(6, "fixed")}
    assert free == one_sided == fixed
