"""The concise format's headline: a finding's message cut to one scannable line."""
from __future__ import annotations

from torchtype_lint.model.findings import Finding, Location, ProvenanceStep
from torchtype_lint.model.headline import MAX_HEADLINE, headline

ROOT = ProvenanceStep(34, 0, "torch.randint(0, 256, (BATCH, 3, 32, 32), dtype=torch.uint8)", "dtype=uint8")


def test_the_provenance_shrinks_to_its_line():
    message = ("result of `images.float()` is discarded: tensor casts are not in place, `images` is still uint8 "
               "(since line 34: `torch.randint(0, 256, (BATCH, 3, 32, 32), dtype=torch.uint8)`, dtype=uint8); "
               "assign it: `images = images.float()`")
    assert headline(message, (ROOT,)) == (
        "result of `images.float()` is discarded: tensor casts are not in place, `images` is still uint8 "
        "(since line 34); assign it: `images = images.float()`")


def test_torchs_quoted_error_goes_and_further_provenance_in_the_bracket_too():
    root = ProvenanceStep(14, 0, "np.zeros(64, dtype=np.int64)", "dtype=int64")
    message = ("`BCEWithLogitsLoss` with a float32 input and an int64 target (since line 14: "
               "`np.zeros(64, dtype=np.int64)`, dtype=int64; converted by `torch.from_numpy(labels)`, which "
               "keeps numpy's dtype) raises RuntimeError (torch: \"result type Float can't be cast to the "
               "desired output type Long\"); convert the target: `y.float()`")
    assert headline(message, (root,)) == ("`BCEWithLogitsLoss` with a float32 input and an int64 target "
                                          "(since line 14) raises RuntimeError; convert the target: `y.float()`")


def test_a_long_bracket_around_the_provenance_collapses():
    message = ("Linear(64, 10) expects 64 input features in the last dimension; `x` has 128 (shape (8, 128), "
               "computed by the layers before it from an input of shape (8, 3, 32, 32) since line 34: "
               "`torch.randint(0, 256, (BATCH, 3, 32, 32), dtype=torch.uint8)`)")
    assert headline(message, (ProvenanceStep(34, 0, ROOT.snippet, ""),)) == (
        "Linear(64, 10) expects 64 input features in the last dimension; `x` has 128 (since line 34)")


def test_clauses_that_do_not_fit_are_left_out_but_the_first_always_stays():
    first = "a" * (MAX_HEADLINE + 10)
    assert headline(f"{first}; use `x.float()`") == first
    assert headline("short; fix; b (x; y)") == "short; fix; b (x; y)"  # `;` inside brackets is no cut


def test_semicolons_in_code_and_quotes_are_not_clause_breaks():
    assert headline('`a; b` is "c; d"') == '`a; b` is "c; d"'


def test_concise_shows_the_headline_and_full_line_the_message():
    finding = Finding("TTL101", "bad (since line 2: `x`, note); fix it", "warning", "t.py", Location(4, 0, 4, 3),
                      (ProvenanceStep(2, 0, "x", "note"),))
    assert finding.concise() == "t.py:4:1: TTL101 bad (since line 2); fix it"
    assert finding.full_line() == "t.py:4:1: TTL101 bad (since line 2: `x`, note); fix it"
