"""Merkle roots and inclusion proofs: arborist's vectors, RFC 6962's own, and mutation probes."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arborist._proofs.hashing import hash_combine, leaf_hash
from arborist._proofs.merkle import (
    EMPTY_ROOT,
    Interior,
    block_span,
    inclusion_proof,
    inclusion_proofs,
    merkle_root,
    proof_from_levels,
    sibling_positions,
    tree_levels,
    upper_nodes,
    verify_inclusion,
)
from tests.conftest import load_vectors

VECTORS = load_vectors("hashing.json")
RFC = load_vectors("rfc6962.json")


def rfc6962_interior(left: bytes, right: bytes) -> bytes:
    """Certificate Transparency's interior node: sha256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def chunk_leaves(n: int) -> list[bytes]:
    """The leaves the vector file describes: leaf_hash(utf8('c{i}'))."""
    return [leaf_hash(f"c{i}".encode()) for i in range(n)]


RFC_LEAVES = [leaf_hash(bytes.fromhex(data)) for data in RFC["leaves_hex"]]


@pytest.mark.parametrize("case", VECTORS["merkle_root"], ids=lambda c: f"size{c['size']}")
def test_merkle_root_matches_vectors(case: dict) -> None:
    assert merkle_root(chunk_leaves(case["size"])).hex() == case["root"]


def test_the_empty_tree_has_the_empty_sha256_as_root() -> None:
    assert merkle_root([]) == EMPTY_ROOT == hashlib.sha256(b"").digest()


@pytest.mark.parametrize(
    "case", VECTORS["inclusion_proof"], ids=lambda c: f"{c['index']}of{c['size']}"
)
def test_inclusion_proof_matches_vectors_and_verifies(case: dict) -> None:
    leaves = chunk_leaves(case["size"])
    proof = inclusion_proof(leaves, case["index"])
    assert [p.hex() for p in proof] == case["proof"]
    assert leaves[case["index"]].hex() == case["leaf"]
    root = bytes.fromhex(case["root"])
    assert verify_inclusion(leaves[case["index"]], case["index"], case["size"], proof, root)


@pytest.mark.parametrize("case", RFC["roots"], ids=lambda c: f"size{c['size']}")
def test_rfc6962_roots_come_out_of_the_same_code(case: dict) -> None:
    root = merkle_root(RFC_LEAVES[: case["size"]], rfc6962_interior)
    assert root.hex() == case["root"]


@pytest.mark.parametrize(
    "case", RFC["inclusion_proofs"], ids=lambda c: f"{c['index']}of{c['size']}"
)
def test_rfc6962_inclusion_proofs_come_out_of_the_same_code_and_verify(case: dict) -> None:
    leaves = RFC_LEAVES[: case["size"]]
    proof = inclusion_proof(leaves, case["index"], rfc6962_interior)
    assert [p.hex() for p in proof] == case["proof"]
    root = merkle_root(leaves, rfc6962_interior)
    assert verify_inclusion(
        leaves[case["index"]], case["index"], case["size"], proof, root, rfc6962_interior
    )


def test_rfc6962_proofs_do_not_verify_under_arborists_interior() -> None:
    """The 0x03 interior keeps arborist's trees apart from CT trees of the same leaves."""
    leaves = RFC_LEAVES
    proof = inclusion_proof(leaves, 5, rfc6962_interior)
    root = merkle_root(leaves, rfc6962_interior)
    assert not verify_inclusion(leaves[5], 5, 8, proof, root)


def test_inclusion_proof_refuses_an_index_outside_the_tree() -> None:
    with pytest.raises(IndexError):
        inclusion_proof(chunk_leaves(3), 3)
    with pytest.raises(IndexError):
        inclusion_proof([], 0)


def test_every_index_of_every_size_up_to_300_verifies() -> None:
    """Each size's proofs cut from one hashing of its tree (``inclusion_proofs``; one
    ``inclusion_proof`` per index, which is the same proof, hashed the tree once per index:
    26 s instead of 1)."""
    for size in range(1, 301):
        leaves = chunk_leaves(size)
        root = merkle_root(leaves)
        for index, proof in enumerate(inclusion_proofs(leaves, range(size))):
            assert verify_inclusion(leaves[index], index, size, proof, root), (index, size)


@given(st.lists(st.binary(max_size=40), min_size=1, max_size=300), st.data())
def test_any_leaf_of_any_tree_verifies_and_its_proof_is_logarithmic(
    chunks: list[bytes], data: st.DataObject
) -> None:
    leaves = [leaf_hash(c) for c in chunks]
    index = data.draw(st.integers(0, len(leaves) - 1))
    proof = inclusion_proof(leaves, index)
    assert len(proof) <= max(1, (len(leaves) - 1).bit_length())
    assert verify_inclusion(leaves[index], index, len(leaves), proof, merkle_root(leaves))


Mutation = Callable[
    [bytes, int, int, list[bytes], bytes], tuple[bytes, int, int, list[bytes], bytes]
]


def _flip(b: bytes, bit: int) -> bytes:
    out = bytearray(b)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def mutations(leaf: bytes, index: int, size: int, proof: list[bytes], root: bytes):  # type: ignore[no-untyped-def]
    """Every mutation of a valid proof that must be rejected, named by what it probes."""
    yield "index+1", (leaf, index + 1, size, proof, root)
    yield "index-1", (leaf, index - 1, size, proof, root)
    yield "size*2", (leaf, index, size * 2, proof, root)
    yield "size/2", (leaf, index, size // 2, proof, root)
    yield "wrong leaf", (leaf_hash(b"not the leaf"), index, size, proof, root)
    yield "wrong root", (leaf, index, size, proof, leaf_hash(b"not the root"))
    yield "leaf bit", (_flip(leaf, 7), index, size, proof, root)
    yield "root bit", (_flip(root, 200), index, size, proof, root)
    for i in range(len(proof)):
        for bit in (0, 131, 255):
            yield (
                f"proof[{i}] bit {bit}",
                (leaf, index, size, [*proof[:i], _flip(proof[i], bit), *proof[i + 1 :]], root),
            )
        yield f"drop proof[{i}]", (leaf, index, size, proof[:i] + proof[i + 1 :], root)
    yield "extra element at end", (leaf, index, size, [*proof, leaf_hash(b"x")], root)
    yield "extra element at start", (leaf, index, size, [leaf_hash(b"x"), *proof], root)
    yield "duplicated last element", (leaf, index, size, proof + proof[-1:], root)
    yield "leaf as root", (leaf, index, size, proof, leaf)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 8, 13, 16, 31, 33, 100])
def test_every_mutation_of_a_valid_proof_is_rejected(size: int) -> None:
    leaves = chunk_leaves(size)
    root = merkle_root(leaves)
    for index in range(size):
        proof = inclusion_proof(leaves, index)
        assert verify_inclusion(leaves[index], index, size, proof, root)
        for name, args in mutations(leaves[index], index, size, proof, root):
            if name == "size/2" and size == 1:
                continue  # size 0 then index 0 is out of range: covered by index checks
            if name == "duplicated last element" and not proof:
                continue
            if name == "leaf as root" and size == 1:
                continue  # a one-leaf tree's root is its leaf
            assert not verify_inclusion(*args), f"{name} accepted at index {index} of {size}"


@pytest.mark.parametrize(
    "args",
    [
        (b"short", 0, 1, [], b"short"),
        ("not bytes", 0, 1, [], "not bytes"),
        (leaf_hash(b"a"), -1, 1, [], leaf_hash(b"a")),
        (leaf_hash(b"a"), 0, 0, [], leaf_hash(b"a")),
        (leaf_hash(b"a"), True, 2, [leaf_hash(b"b")], leaf_hash(b"a")),
        (leaf_hash(b"a"), 0.0, 1, [], leaf_hash(b"a")),
        (leaf_hash(b"a"), 0, 2, [b"\x00" * 31], leaf_hash(b"a")),
        (leaf_hash(b"a"), 0, 2, [None], leaf_hash(b"a")),
    ],
)
def test_verify_inclusion_returns_false_on_malformed_input_and_never_raises(args: tuple) -> None:
    assert verify_inclusion(*args) is False


def test_a_single_leaf_is_its_own_root_and_needs_no_proof() -> None:
    leaf = leaf_hash(b"only")
    assert merkle_root([leaf]) == leaf
    assert inclusion_proof([leaf], 0) == []
    assert verify_inclusion(leaf, 0, 1, [], leaf)


def test_a_root_does_not_fix_its_size_so_verifiers_must_take_the_stored_size() -> None:
    """Why chunk_count is stored beside source_root (16 of 36 such cases measured: docs/design.md section 2).

    RFC 9162 verification of a valid proof for size n also succeeds for size
    n + 1 at some indices: the same path folds to the same root. A verifier
    that accepted a size from the proof would accept a leaf at a position
    the tree does not have.
    """
    accepted = 0
    for size in range(1, 40):
        leaves = chunk_leaves(size)
        root = merkle_root(leaves)
        for index in range(size):
            proof = inclusion_proof(leaves, index)
            accepted += verify_inclusion(leaves[index], index, size + 1, proof, root)
    assert accepted > 0


@given(st.integers(min_value=1, max_value=70), st.data())
def test_proofs_for_several_leaves_equal_one_proof_each(size: int, data: st.DataObject) -> None:
    leaves = [leaf_hash(bytes([i % 256, i // 256])) for i in range(size)]
    indices = data.draw(st.lists(st.integers(min_value=0, max_value=size - 1), max_size=8))
    assert inclusion_proofs(leaves, indices) == [inclusion_proof(leaves, i) for i in indices]


def test_proofs_for_several_leaves_refuse_an_index_outside_the_tree() -> None:
    with pytest.raises(IndexError, match="outside a tree of size 2"):
        inclusion_proofs([leaf_hash(b"a"), leaf_hash(b"b")], [0, 2])


# --- proofs cut from kept levels, and from a block plus the nodes a store keeps ------------


def refolded_proof(hashes: list[bytes], index: int, interior: Interior) -> list[bytes]:
    """The proof as arborist cut it before levels were kept: refold the whole tree, taking
    the sibling at each level where one exists. The reference the fast paths must equal."""
    proof, level, position = [], list(hashes), index
    while len(level) > 1:
        if position ^ 1 < len(level):
            proof.append(level[position ^ 1])
        paired = [interior(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = paired + ([level[-1]] if len(level) % 2 else [])
        position //= 2
    return proof


def proof_from_block(
    hashes: list[bytes],
    index: int,
    floor: int,
    interior: Interior,
    kept: dict[tuple[int, int], bytes] | None = None,
) -> list[bytes]:
    """A proof as the store cuts one: fold only the leaf's block, then the kept siblings
    (``kept``: the tree's :func:`upper_nodes` by place, made here when not given)."""
    if kept is None:
        levels = tree_levels(hashes, interior)
        kept = {(lv, pos): node for lv, pos, node in upper_nodes(levels, floor)}
    start, stop = block_span(len(hashes), index, floor)
    local = proof_from_levels(tree_levels(hashes[start:stop], interior), index - start)
    return local + [kept[place] for place in sibling_positions(len(hashes), index, floor)]


# Every size up to 70 (every shape with up to two blocks at floor 6) and each side of the
# powers of two up to 300; under --long every size up to 300. Each size's reference proofs
# are refolded once and checked at every floor from 0 to 6 (in place of 100 random
# (size, floor) draws, each refolding every proof again: 17 s for fewer cases).
REFOLD_SIZES = (*range(1, 71), 127, 128, 129, 255, 256, 257, 300)


def test_proofs_cut_from_levels_or_blocks_equal_the_refolded_proof_at_every_index(
    long_run: bool,
) -> None:
    for size in range(1, 301) if long_run else REFOLD_SIZES:
        leaves = [leaf_hash(size.to_bytes(2, "big") + i.to_bytes(2, "big")) for i in range(size)]
        levels = tree_levels(leaves)
        assert levels[-1] == [merkle_root(leaves)]
        expected = [refolded_proof(leaves, index, hash_combine) for index in range(size)]
        assert [proof_from_levels(levels, i) for i in range(size)] == expected, size
        assert inclusion_proofs(leaves, range(size)) == expected, size
        assert inclusion_proof(leaves, size - 1) == expected[-1], size
        for floor in range(7):
            kept = {(lv, pos): node for lv, pos, node in upper_nodes(levels, floor)}
            for index in range(size):
                proof = proof_from_block(leaves, index, floor, hash_combine, kept)
                assert proof == expected[index], (size, floor, index)


@pytest.mark.parametrize(
    "case", RFC["inclusion_proofs"], ids=lambda c: f"{c['index']}of{c['size']}"
)
@pytest.mark.parametrize("floor", [0, 1, 2, 4])
def test_rfc6962_proofs_come_out_of_a_block_and_kept_nodes_too(case: dict, floor: int) -> None:
    leaves = RFC_LEAVES[: case["size"]]
    proof = proof_from_block(leaves, case["index"], floor, rfc6962_interior)
    assert [p.hex() for p in proof] == case["proof"]


def test_a_store_keeps_no_node_for_a_tree_of_up_to_two_to_the_floor_leaves() -> None:
    assert upper_nodes(tree_levels(chunk_leaves(16)), 4) == []
    kept = upper_nodes(tree_levels(chunk_leaves(17)), 4)
    assert [(lv, pos) for lv, pos, _node in kept] == [(4, 0), (4, 1)]
    assert kept[1][2] == leaf_hash(b"c16")  # the odd last node moved up unchanged
    levels = tree_levels(chunk_leaves(1000))
    assert len(upper_nodes(levels, 4)) == 63 + 32 + 16 + 8 + 4 + 2  # about n/8; no root


def test_the_empty_tree_has_one_empty_level_and_no_proof() -> None:
    assert tree_levels([]) == [[]]
    with pytest.raises(IndexError, match="outside a tree of size 0"):
        proof_from_levels(tree_levels([]), 0)
    for refuse in (lambda: block_span(5, 5, 2), lambda: sibling_positions(5, -1, 2)):
        with pytest.raises(IndexError, match="outside a tree of size 5"):
            refuse()


def test_a_proof_cut_from_kept_levels_is_logarithmic_in_time() -> None:
    """Cutting a proof from 100,000 kept leaves costs about what it costs from 1,000 (17
    levels against 10): a hundred times the leaves may not cost ten times the CPU time,
    which linear work would exceed tenfold. A ratio of CPU times, best of three rounds
    interleaved: bench/hashing.py measures the microseconds."""
    sizes = (1_000, 100_000)
    trees = {n: tree_levels([leaf_hash(i.to_bytes(4, "big")) for i in range(n)]) for n in sizes}
    rounds, best = 2_000, dict.fromkeys(sizes, float("inf"))
    for _ in range(3):
        for n, levels in trees.items():
            start = time.process_time()
            for i in range(rounds):
                proof_from_levels(levels, (i * 7919) % n)
            best[n] = min(best[n], time.process_time() - start)
    assert best[100_000] / max(best[1_000], 1e-4) < 10
