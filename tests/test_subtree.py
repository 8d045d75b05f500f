"""subtree_hash commits to a tree's shape and content, not to the order children arrive in."""

from __future__ import annotations

from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from arborist._proofs.hashing import sha256_hex, subtree_hash

# A tree is (node_hash_hex, (child, child, ...)); children as a sorted tuple of
# canonical forms makes two trees equal exactly when they are isomorphic.
Tree = tuple[str, tuple["Tree", ...]]


def tree_hash(tree: Tree) -> str:
    """subtree_hash of a whole tree, bottom-up without recursion."""
    order: list[Tree] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node[1])
    memo: dict[int, str] = {}
    for node in reversed(order):
        memo[id(node)] = subtree_hash(node[0], [memo[id(child)] for child in node[1]])
    return memo[id(tree)]


def canonical(tree: Tree) -> Tree:
    return (tree[0], tuple(sorted(canonical(child) for child in tree[1])))


@cache
def forests(total: int, labels: tuple[str, ...]) -> list[tuple[Tree, ...]]:
    """Every multiset of trees with ``total`` nodes in all (up to isomorphism)."""
    if total == 0:
        return [()]
    results: set[tuple[Tree, ...]] = set()
    for first_size in range(1, total + 1):
        for first in trees(first_size, labels):
            for rest in forests(total - first_size, labels):
                results.add(tuple(sorted((first, *rest))))
    return sorted(results)


@cache
def trees(size: int, labels: tuple[str, ...]) -> list[Tree]:
    """Every rooted unordered tree of ``size`` nodes, each node hash drawn from ``labels``."""
    return sorted({(label, kids) for label in labels for kids in forests(size - 1, labels)})


A = sha256_hex(b"A")
B = sha256_hex(b"B")


def test_there_are_as_many_unlabelled_shapes_as_the_rooted_tree_counts() -> None:
    # OEIS A000081: 1, 1, 2, 4, 9 rooted trees with 1..5 nodes.
    assert [len(trees(n, (A,))) for n in range(1, 6)] == [1, 1, 2, 4, 9]


def test_no_two_different_tree_shapes_up_to_five_nodes_share_a_subtree_hash() -> None:
    shapes = [t for n in range(1, 6) for t in trees(n, (A,))]
    hashes = {tree_hash(t) for t in shapes}
    assert len(hashes) == len(shapes) == 17


def test_no_two_different_labelled_trees_up_to_five_nodes_share_a_subtree_hash() -> None:
    labelled = [t for n in range(1, 6) for t in trees(n, (A, B))]
    hashes = {tree_hash(t) for t in labelled}
    assert len(hashes) == len(labelled)


def test_a_node_with_two_children_differs_from_a_chain_of_the_same_nodes() -> None:
    x, y, z = (sha256_hex(s) for s in (b"X", b"Y", b"Z"))
    fan = (x, ((y, ()), (z, ())))
    chain = (x, ((y, ((z, ()),)),))
    chain_other = (x, ((z, ((y, ()),)),))
    assert len({tree_hash(fan), tree_hash(chain), tree_hash(chain_other)}) == 3


@given(st.lists(st.binary(min_size=1, max_size=8), min_size=0, max_size=12), st.randoms())
def test_subtree_hash_ignores_the_order_children_are_given_in(seeds: list[bytes], rnd) -> None:  # type: ignore[no-untyped-def]
    children = [sha256_hex(s) for s in seeds]
    shuffled = list(children)
    rnd.shuffle(shuffled)
    assert subtree_hash(A, children) == subtree_hash(A, shuffled)


@given(st.lists(st.binary(min_size=1, max_size=8), min_size=1, max_size=6, unique=True))
def test_adding_or_removing_a_child_changes_the_subtree_hash(seeds: list[bytes]) -> None:
    children = [sha256_hex(s) for s in seeds]
    assert subtree_hash(A, children) != subtree_hash(A, children[:-1])


def test_duplicate_children_count() -> None:
    """Two identical child subtrees are two children, not one."""
    child = tree_hash((B, ()))
    assert subtree_hash(A, [child]) != subtree_hash(A, [child, child])


def test_a_ten_thousand_deep_chain_hashes_without_recursion() -> None:
    acc = subtree_hash(A, [])
    for _ in range(10_000):
        acc = subtree_hash(B, [acc])
    assert len(acc) == 64


def test_labelled_trees_outnumber_shapes_so_the_labelled_check_is_stronger() -> None:
    assert len(trees(5, (A, B))) > 9 * 2
