"""The hash conventions reproduce every known answer in tests/vectors/hashing.json."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arborist._errors import CanonicalJSONError
from arborist._forest.shard import node_event_body, node_event_text
from arborist._proofs.hashing import (
    CACHE_KEY_DIMENSIONS,
    EVENT_FIELDS,
    MAX_SAFE_INTEGER,
    NODE_FIELDS,
    cache_key,
    canonical_json,
    canonical_text,
    event_hash,
    event_row_hash,
    fold_one,
    hash_combine,
    leaf_hash,
    node_hash,
    node_row_hash,
    normalize_question,
    question_hash,
    sha256_hex,
    stored_event_hash,
    subtree_hash,
    subtree_hash_bytes,
)
from tests.conftest import load_vectors

VECTORS = load_vectors("hashing.json")

# The vector file writes refused inputs as Python source; these are those values.
REFUSED = {
    "float": {"x": 1.5},
    "NaN": float("nan"),
    "integer beyond 2**53": 2**53 + 1,
    "non-string key": {1: "a"},
    "lone surrogate": "\ud800",
}


@pytest.mark.parametrize("case", VECTORS["canonical_json"], ids=lambda c: c["text"][:30])
def test_canonical_json_matches_every_vector_byte_for_byte(case: dict) -> None:
    out = canonical_json(case["input"])
    assert out.hex() == case["utf8_hex"]
    assert out.decode("utf-8") == case["text"]


@pytest.mark.parametrize("case", VECTORS["canonical_json_refused"], ids=lambda c: c["desc"])
def test_canonical_json_refuses_every_refused_vector(case: dict) -> None:
    assert case["desc"] in REFUSED, "a new refusal vector needs its Python value here"
    with pytest.raises(CanonicalJSONError):
        canonical_json(REFUSED[case["desc"]])


@pytest.mark.parametrize(
    "value",
    [
        -(2**53),
        float("inf"),
        1.0,
        {"k": "\udfff"},
        {"\ud800": 1},
        b"bytes",
        {1, 2},
        object(),
    ],
)
def test_canonical_json_refuses_values_outside_the_subset(value: object) -> None:
    with pytest.raises(CanonicalJSONError):
        canonical_json(value)


def test_canonical_json_refuses_circular_and_absurdly_deep_values_with_a_clear_error() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(CanonicalJSONError, match="nested"):
        canonical_json(loop)
    deep: object = "x"
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(CanonicalJSONError, match="nested"):
        canonical_json(deep)


def test_canonical_json_accepts_the_integer_limits_exactly() -> None:
    assert (
        canonical_json([MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER])
        == b"[9007199254740991,-9007199254740991]"
    )


def test_canonical_json_sorts_keys_by_code_point_not_utf16() -> None:
    # UTF-16 order (JS's default sort, RFC 8785) would put the astral key first.
    assert canonical_json({"\U00010000": 1, "\uffff": 2}).decode() == '{"\uffff":2,"\U00010000":1}'


def test_canonical_json_does_not_normalize_text() -> None:
    assert canonical_json("Cafe\u0301") != canonical_json("Caf\u00e9")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
    | st.text(st.characters(exclude_categories=("Cs",))),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(st.characters(exclude_categories=("Cs",)), max_size=5), children, max_size=4
        )
    ),
    max_leaves=20,
)


@given(json_values)
def test_canonical_json_round_trips_and_is_a_fixed_point(value: object) -> None:
    out = canonical_json(value)
    assert json.loads(out) == value
    assert canonical_json(json.loads(out)) == out


@pytest.mark.parametrize("case", VECTORS["leaf_hash"], ids=lambda c: c["input_hex"][:16] or "empty")
def test_leaf_hash_matches_vectors(case: dict) -> None:
    assert leaf_hash(bytes.fromhex(case["input_hex"])).hex() == case["output"]


def test_leaf_hash_is_sha256_of_the_prefixed_bytes_at_any_size_and_from_any_thread() -> None:
    """It hashes from a copy of a shared state: sizes past hashlib's GIL-releasing bound
    (2047 bytes), and threads hashing at once, give what sha256(0x00 || data) gives."""
    sizes = [0, 1, 2047, 2048, 4096, 100_000]
    datas = [bytes(range(256)) * (n // 256) + b"x" * (n % 256) for n in sizes]
    for data in datas:
        assert leaf_hash(data) == hashlib.sha256(b"\x00" + data).digest()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(leaf_hash, datas * 50))
    assert got == [hashlib.sha256(b"\x00" + d).digest() for d in datas * 50]


@pytest.mark.parametrize("case", VECTORS["hash_combine"])
def test_hash_combine_matches_vectors(case: dict) -> None:
    out = hash_combine(bytes.fromhex(case["left"]), bytes.fromhex(case["right"]))
    assert out.hex() == case["output"]


def test_sha256_hex_is_lowercase_hex_of_sha256() -> None:
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("case", VECTORS["question_hash"], ids=lambda c: repr(c["question"])[:30])
def test_question_hash_normalizes_then_hashes(case: dict) -> None:
    assert normalize_question(case["question"]) == case["normalized"]
    assert question_hash(case["question"]) == case["question_hash"]


@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_question_hash_ignores_spacing_and_normalization_form(text: str) -> None:
    spaced = "  " + "\t\n ".join(unicodedata.normalize("NFD", text).split(" ")) + " \n"
    assert question_hash(spaced) == question_hash(" ".join(text.split()))


@pytest.mark.parametrize("case", VECTORS["node_hash"], ids=lambda c: c["fields"]["bates"])
def test_node_hash_matches_vectors(case: dict) -> None:
    assert tuple(sorted(case["fields"])) == tuple(sorted(NODE_FIELDS))
    assert node_hash(**case["fields"]) == case["node_hash"]


def test_node_hash_changes_with_every_field() -> None:
    base = dict(VECTORS["node_hash"][1]["fields"])
    original = node_hash(**base)
    for name in NODE_FIELDS:
        changed = dict(base)
        changed[name] = "x" if base[name] is None else None
        assert node_hash(**changed) != original, name


@pytest.mark.parametrize(
    "case", VECTORS["subtree_hash"], ids=lambda c: c.get("desc", c["subtree_hash"][:8])
)
def test_subtree_hash_matches_vectors(case: dict) -> None:
    assert subtree_hash(case["node_hash"], case["children_subtree_hashes"]) == case["subtree_hash"]


@pytest.mark.parametrize("bad", ["", "ab", "zz" * 32, "a" * 63, "a" * 65])
def test_subtree_hash_refuses_a_malformed_digest(bad: str) -> None:
    with pytest.raises(CanonicalJSONError):
        subtree_hash(bad, [])
    with pytest.raises(CanonicalJSONError):
        subtree_hash("a" * 64, [bad])


@pytest.mark.parametrize(
    "case", VECTORS["subtree_hash"], ids=lambda c: c.get("desc", c["subtree_hash"][:8])
)
def test_subtree_hash_bytes_matches_vectors(case: dict) -> None:
    kids = [bytes.fromhex(c) for c in case["children_subtree_hashes"]]
    folded = subtree_hash_bytes(bytes.fromhex(case["node_hash"]), kids)
    assert folded.hex() == case["subtree_hash"]


DIGESTS = st.binary(min_size=32, max_size=32)


@given(DIGESTS, st.lists(DIGESTS, max_size=8))
def test_subtree_hash_bytes_is_subtree_hash_on_raw_digests(node: bytes, kids: list[bytes]) -> None:
    expected = subtree_hash(node.hex(), [k.hex() for k in kids])
    assert subtree_hash_bytes(node, kids) == bytes.fromhex(expected)
    assert subtree_hash_bytes(node, reversed(kids)).hex() == expected  # order is irrelevant


@pytest.mark.parametrize("bad", [b"", b"ab", b"a" * 31, b"a" * 33, "a" * 32, "ab" * 32, None])
def test_subtree_hash_bytes_refuses_anything_but_32_bytes(bad: object) -> None:
    with pytest.raises(CanonicalJSONError):
        subtree_hash_bytes(bad, [])  # type: ignore[arg-type]
    with pytest.raises(CanonicalJSONError):
        subtree_hash_bytes(b"a" * 32, [b"b" * 32, bad])  # type: ignore[list-item]


@given(DIGESTS, st.one_of(st.none(), DIGESTS))
def test_fold_one_is_subtree_hash_bytes_of_at_most_one_child(
    node: bytes, kid: bytes | None
) -> None:
    assert fold_one(node, kid) == subtree_hash_bytes(node, [] if kid is None else [kid])


@pytest.mark.parametrize("bad", [b"", b"a" * 31, b"a" * 33, "a" * 32, None])
def test_fold_one_refuses_what_subtree_hash_bytes_refuses(bad: object) -> None:
    with pytest.raises(CanonicalJSONError):
        fold_one(bad, None)  # type: ignore[arg-type]
    with pytest.raises(CanonicalJSONError):
        fold_one(b"a" * 32, bad if bad is not None else 7)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", VECTORS["event_hash"], ids=lambda c: c["event_type"])
def test_event_hash_matches_vectors(case: dict) -> None:
    fields = {name: case[name] for name in EVENT_FIELDS}
    assert event_hash(case["prev_event_hash"], **fields) == case["event_hash"]


@pytest.mark.parametrize("case", VECTORS["event_hash"], ids=lambda c: c["event_type"])
def test_stored_event_hash_equals_event_hash_on_vectors(case: dict) -> None:
    fields = {name: case[name] for name in EVENT_FIELDS if name != "body"}
    body_json = canonical_json(case["body"]).decode()
    expected = case["event_hash"]
    assert stored_event_hash(case["prev_event_hash"], body_json=body_json, **fields) == expected


optional_text = st.none() | st.text(st.characters(exclude_categories=("Cs",)), max_size=30)


@given(
    st.none() | st.binary(min_size=32, max_size=32).map(bytes.hex),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=20),
    optional_text,
    optional_text,
    json_values,
    st.text(max_size=30, alphabet="0123456789-:TZ."),
)
def test_stored_event_hash_equals_event_hash_for_any_event(
    prev: str | None,
    event_type: str,
    sid: str | None,
    bates: str | None,
    body: object,
    created_at: str,
) -> None:
    full = event_hash(
        prev, event_type=event_type, sid=sid, bates=bates, body=body, created_at=created_at
    )
    stored = stored_event_hash(
        prev,
        event_type=event_type,
        sid=sid,
        bates=bates,
        body_json=canonical_json(body).decode(),
        created_at=created_at,
    )
    assert stored == full


def test_stored_event_hash_covers_the_body_bytes_exactly() -> None:
    fields = {"event_type": "t", "sid": None, "bates": None, "created_at": "c"}
    assert stored_event_hash(None, body_json='{"a":1}', **fields) != stored_event_hash(
        None, body_json='{"a": 1}', **fields
    )


@pytest.mark.parametrize("case", VECTORS["cache_key"])
def test_cache_key_matches_vectors(case: dict) -> None:
    assert tuple(sorted(case["dimensions"])) == tuple(sorted(CACHE_KEY_DIMENSIONS))
    assert cache_key(case["dimensions"]) == case["cache_key"]


def test_cache_key_refuses_missing_or_extra_dimensions() -> None:
    dims = dict(VECTORS["cache_key"][0]["dimensions"])
    with pytest.raises(CanonicalJSONError, match="missing"):
        cache_key({k: v for k, v in dims.items() if k != "source_root"})
    with pytest.raises(CanonicalJSONError, match="unexpected"):
        cache_key({**dims, "api_key": "sk-secret"})


def test_cache_key_drifts_with_every_dimension() -> None:
    dims = dict(VECTORS["cache_key"][0]["dimensions"])
    original = cache_key(dims)
    for name in CACHE_KEY_DIMENSIONS:
        assert cache_key({**dims, name: dims[name] + "x"}) != original, name


hostile_text = st.text(
    st.characters(exclude_categories=("Cs",))
    | st.sampled_from(['"', "\\", "\u2028", "\u2029", "\x00", "\x1f", "\x7f", "/", "\U0001f600"]),
    max_size=30,
)
digests = st.binary(min_size=32, max_size=32).map(bytes.hex)


@given(st.none() | digests, hostile_text, st.none() | hostile_text, st.none() | hostile_text)
def test_event_row_hash_equals_stored_event_hash_for_any_text_row(
    prev: str | None, text: str, sid: str | None, bates: str | None
) -> None:
    # body_json is hashed as the bytes stored, JSON or not: any text at all.
    for body_json in (text, canonical_json({"t": text}).decode(), json.dumps({"t": text})):
        fields = {"event_type": text, "sid": sid, "bates": bates, "created_at": text[::-1]}
        expected = stored_event_hash(prev, body_json=body_json, **fields)
        assert event_row_hash(prev, text, sid, bates, body_json, text[::-1]) == expected


@pytest.mark.parametrize("case", VECTORS["event_hash"], ids=lambda c: c["event_type"])
def test_event_row_hash_reproduces_the_event_hash_vectors(case: dict) -> None:
    fields = [case[name] for name in ("event_type", "sid", "bates")]
    body_json = canonical_json(case["body"]).decode()
    got = event_row_hash(case["prev_event_hash"], *fields, body_json, case["created_at"])
    assert got == case["event_hash"]


@pytest.mark.parametrize(
    "row",
    [
        ("A" * 64 + " ", "t", None, None, "{}", "c"),  # prev of the wrong length
        ("ab " * 21 + "a", "t", None, None, "{}", "c"),
        (None, "t", 5, None, "{}", "c"),  # stored_event_hash would hash the int as 5
        (None, "t", None, 7, "{}", "c"),
        (None, 3, None, None, "{}", "c"),
        (None, "t", None, None, "{}", None),  # ... and a NULL created_at as null
        (None, "t", None, None, b"{}", "c"),
        (None, "t", None, None, 1, "c"),
        (None, "t", None, None, None, "c"),
        (b"\x00" * 32, "t", None, None, "{}", "c"),
        (None, "t\ud800", None, None, "{}", "c"),  # a lone surrogate
        (None, "t", None, None, '{"a":"\udfff"}', "c"),
    ],
)
def test_event_row_hash_raises_for_every_row_that_is_not_all_text(row: tuple) -> None:
    with pytest.raises((TypeError, ValueError)):
        event_row_hash(*row)


@given(
    st.none() | digests,
    hostile_text,
    hostile_text,
    st.none() | hostile_text,
    st.sampled_from(["ROOT", "live", "cached", '"']),
)
def test_node_row_hash_equals_node_hash_for_any_text_fields(
    parent: str | None, bates: str, question: str, label: str | None, mode: str
) -> None:
    fields = {
        "parent_node_hash": parent,
        "bates": bates,
        "question": question,
        "cache_key": question[::-1],
        "audit_mode": mode,
        "created_at": bates[::-1],
        "label": label,
    }
    assert node_row_hash(*fields.values()) == node_hash(**fields)


@pytest.mark.parametrize("case", VECTORS["node_hash"], ids=lambda c: c["fields"]["bates"])
def test_node_row_hash_reproduces_the_node_hash_vectors(case: dict) -> None:
    assert node_row_hash(*(case["fields"][name] for name in NODE_FIELDS)) == case["node_hash"]


@pytest.mark.parametrize(
    "changed",
    [{"question": 5}, {"label": 0}, {"parent_node_hash": 12}, {"question": "q\ud800"}],
)
def test_node_row_hash_gives_node_hash_s_answer_for_other_fields(changed: dict) -> None:
    fields = dict(VECTORS["node_hash"][1]["fields"]) | changed
    try:
        expected: object = node_hash(**fields)
    except CanonicalJSONError as exc:
        expected = type(exc)
    try:
        got: object = node_row_hash(*(fields[name] for name in NODE_FIELDS))
    except CanonicalJSONError as exc:
        got = type(exc)
    assert got == expected
    if changed != {"question": "q\ud800"}:
        assert isinstance(got, str)  # an int is canonical JSON: node_hash hashes it


@given(
    st.none() | st.integers() | digests | hostile_text,
    st.none() | st.integers() | hostile_text,
    hostile_text,
    hostile_text,
)
def test_node_event_text_is_the_canonical_text_of_node_event_body(
    digest: object, parent: object, answer: str, titles: str
) -> None:
    """verify compares each turn's stored event with the body rebuilt field by field: it must
    be the very text the writer stores (canonical JSON of the body), for any row, an edited
    one with a NULL or number where text belongs included."""
    body = node_event_body(digest, parent, answer, titles)  # type: ignore[arg-type]
    assert node_event_text(digest, parent, answer, titles) == canonical_text(body)  # type: ignore[arg-type]
