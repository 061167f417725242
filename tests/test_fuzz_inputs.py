"""Fuzzing hostile inputs: bytes, encodings, deep and large programs, and the language server.

``test_fuzz.py`` fuzzes *programs* (valid tensor code, mutated fixtures); this file fuzzes what an
attacker controls beyond that. For every input: no exception escapes, the tool's own failure
(TTL000 "internal error") never appears where a diagnostic is due, and every run ends within
seconds. Notebooks and cache entries have their own fuzz tests (``test_notebook_robustness.py``,
``test_cache_safety.py``). Derandomized, so CI runs the same examples every time.
"""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchtype_lint.run import runner
from torchtype_lint.checker.check import check_bytes
from torchtype_lint.model.settings import Settings

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
HEAD = b"import torch\n"
BAD = "x = torch.ones(2, dtype=torch.int64)\nx.float()\n"


def _codes(result):
    return [f.code for f in result.findings]


#: Bytes that look like code often enough to reach the parser and the engine.
TOKENS = st.sampled_from([b"torch.", b"ones(", b"zeros(2, 3)", b"dtype=torch.int64", b")", b"(", b"[", b"]",
                          b"x", b" = ", b".float()", b"\n", b"    ", b"\t", b"#", b"'", b'"""', b"\\", b"@",
                          b"np.array(", b"lambda", b":", b",", b"\r", b"\x00", b"\xff", b"\xc3\xa9", b"\x0c"])


@FUZZ
@given(st.binary(max_size=2000) | st.lists(TOKENS, max_size=200).map(b"".join))
def test_random_bytes(data):
    result = check_bytes(HEAD + data, "bytes.py", Settings())
    assert "TTL000" not in _codes(result) or "not analysed" in result.findings[0].message, result.findings


ENCODINGS = ["utf-8", "utf-8-sig", "latin-1", "cp1252", "utf-16", "utf-32", "shift_jis", "koi8-r", "ascii"]


@FUZZ
@given(st.text(max_size=200), st.sampled_from(ENCODINGS), st.booleans())
def test_text_in_any_encoding_with_or_without_a_cookie(text, encoding, cookie):
    body = "import torch\n" + ("s = " + repr(text) + "\n") + BAD
    if cookie:
        body = f"# -*- coding: {encoding} -*-\n" + body
    try:
        data = body.encode(encoding)
    except UnicodeEncodeError:
        data = body.encode(encoding, errors="replace")
    result = check_bytes(data, "enc.py", Settings())
    assert "TTL000" not in _codes(result), result.findings
    decodable = encoding in ("utf-8", "ascii") or (cookie and not encoding.startswith("utf-")) \
        or encoding == "utf-8-sig"
    if decodable and not any(f.code == "TTL001" for f in result.findings):
        assert "TTL101" in _codes(result)


# ---------------------------------------------------------------------- deep and large programs

#: (prefix, suffix) pairs that nest one level each; CPython refuses some at a few hundred (the
#: brackets), some at thousands, some never (they are left-recursive).
NESTERS = [("-", ""), ("not ", ""), ("~", ""), ("(", ")"), ("[", "]"), ("f(", ")"), ("lambda: ", ""),
           ("1 if c else ", ""), ("await ", ""), ("{1: ", "}"), ("a[", "]")]
CHAINS = [".b", "[0]", "()", ".abs()", " + a", " and a", " < a", " ** 2", " @ a"]


@st.composite
def deep_expression(draw):
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        prefix, suffix = draw(st.sampled_from(NESTERS))
        depth = draw(st.sampled_from([1, 10, 150, 500, 2_000, 6_000, 30_000]))
        parts.append((prefix, suffix, depth))
    text = "a"
    for prefix, suffix, depth in parts:
        text = prefix * depth + text + suffix * depth
    chain, length = draw(st.sampled_from(CHAINS)), draw(st.sampled_from([0, 100, 3_000, 100_000]))
    return text + chain * length


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(deep_expression(), st.integers(1, 3))
def test_deep_and_long_expressions_end_fast(expression, copies):
    source = "import torch\n" + ("y = " + expression + "\n") * copies + BAD
    started = time.monotonic()
    result = runner.check_bytes_deep(source.encode(), "deep.py", Settings())
    took = time.monotonic() - started
    assert took < 30, f"{took:.1f}s for {expression[:60]}..."  # the hard kill would be at 30 s
    codes = _codes(result)
    if "TTL001" in codes or "TTL000" in codes:
        # Refused: by Python, by the screen (too deep, too large), or libcst refusing valid Python.
        assert len(result.findings) == 1 and any(
            word in result.findings[0].message for word in ("syntax error", "too", "which Python accepts")), \
            result.findings
    else:
        assert "TTL101" in codes


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(["x = [" + ",".join(["1"] * 500_000) + "]\n",
                        "".join(f"y{i} = {i}\n" for i in range(150_000)),
                        "x = {" + ",".join(f"{i}: {i}" for i in range(200_000)) + "}\n",
                        "# " + "c" * 11_000_000 + "\n"]))
def test_large_files_are_refused_by_the_screen_in_seconds(body):
    started = time.monotonic()
    result = runner.check_bytes_deep(HEAD + body.encode(), "large.py", Settings())
    assert time.monotonic() - started < 20
    assert _codes(result) == ["TTL001"] and "too large" in result.findings[0].message


# ---------------------------------------------------------------------- the language server

JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
URIS = st.sampled_from(["file:///tmp/fuzz.py", "file:///tmp/other.py", "untitled:1", "file:///tmp/nb.ipynb"])
POSITION = st.fixed_dictionaries({"line": st.integers(-2, 2**31), "character": st.integers(-2, 2**31)}) | JSON


@st.composite
def lsp_message(draw):
    uri = draw(URIS)
    kind = draw(st.integers(0, 5))
    if kind == 0:  # a document with random text (often not Python at all)
        text = draw(st.text(max_size=300) | st.sampled_from(["import torch\n" + "-" * 20_000 + "1\n",
                                                              "import torch\n" + BAD]))
        return "notify", "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                   "version": draw(st.integers(0, 9)), "text": text}}
    if kind == 1:
        return "notify", "textDocument/didChange", {
            "textDocument": {"uri": uri, "version": draw(st.integers(0, 9))},
            "contentChanges": draw(st.lists(st.fixed_dictionaries({"text": st.text(max_size=100)}) | JSON,
                                            max_size=2))}
    if kind == 2:
        return "request", "textDocument/hover", {"textDocument": {"uri": uri}, "position": draw(POSITION)}
    if kind == 3:
        return "request", "textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": {"start": draw(POSITION), "end": draw(POSITION)},
            "context": {"diagnostics": [], "only": draw(st.none() | st.lists(st.text(max_size=10), max_size=2))}}
    if kind == 4:
        return "request", draw(st.sampled_from(["textDocument/hover", "textDocument/codeAction"])), draw(JSON)
    return "notify", "textDocument/didClose", {"textDocument": {"uri": uri}}


@pytest.fixture(scope="module")
def language_server():
    pytest.importorskip("pygls")
    from test_lsp_protocol_errors import RawClient

    client = RawClient()
    client.request(0, "initialize", {"processId": None, "capabilities": {}})
    client.reply()
    client.notify("initialized", {})
    yield client
    client.close()


_ids = iter(range(1, 10**9))


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(st.lists(lsp_message(), min_size=1, max_size=4))
def test_language_server_answers_every_request_and_stays_up(language_server, messages):
    client = language_server
    for how, method, params in messages:
        if how == "notify":
            client.notify(method, params)
            continue
        msg_id = next(_ids)
        client.request(msg_id, method, params)
        reply = client.reply()
        assert reply.get("id") == msg_id, reply
        assert ("result" in reply) != ("error" in reply), reply
        assert client.process.poll() is None, "the server died"
    # Still serving: a well-formed request gets a well-formed reply.
    msg_id = next(_ids)
    client.request(msg_id, "textDocument/hover", {"textDocument": {"uri": "file:///tmp/none.py"},
                                                  "position": {"line": 0, "character": 0}})
    assert client.reply().get("id") == msg_id
    assert client.process.poll() is None


# ---------------------------------------------------------------------- the screen's comma count

LITERAL = st.text(max_size=30).map(repr) | st.binary(max_size=20).map(repr) | st.sampled_from(
    ['"""a, b\n, c"""', "'''x, \\''', y'''", 'r"\\\\"', "f'{a, b}'", "rb'\\','"])
PIECES = st.sampled_from(["a", "1", "(a, b)", "[1, 2,]", "x and y", "x or y", "f(a, b=1)", "{1: 2, 3: 4}",
                          "lambda a, b: a", "not a", "a if b else c"])


@FUZZ
@given(st.lists(st.tuples(PIECES, LITERAL, st.booleans()), min_size=1, max_size=12))
def test_separator_count_never_exceeds_the_syntax_nodes(parts):
    # The screen refuses a large file on its count of commas, `and`s and `or`s outside strings
    # and comments before CPython parses it: that count must be a lower bound on the nodes.
    import ast

    from torchtype_lint.source.screen import _SEPARATORS

    lines = [f"v{i} = ({piece}, {literal})" + ("  # a, b, and, or" if comment else "")
             for i, (piece, literal, comment) in enumerate(parts)]
    source = "\n".join(lines) + "\n"
    nodes = sum(1 for _ in ast.walk(ast.parse(source)))
    separators = sum(1 for m in _SEPARATORS.finditer(source) if m.lastgroup == "separator")
    assert separators <= nodes, source
