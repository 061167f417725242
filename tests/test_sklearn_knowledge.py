"""knowledge/sklearn_api.py checked row by row against scikit-learn (skipped where it is not
installed: the linter never imports it, so nothing else needs it).

Each row's engine value must be known (dtype and every dim) and agree with the real result.
"""
from __future__ import annotations

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("torch")

from knowledge_truth import contradiction, engine_globals, real_globals  # noqa: E402

PRELUDE = """\
import numpy as np
import torch
from sklearn.datasets import (load_breast_cancer, load_digits, load_iris, load_wine, make_blobs,
                              make_circles, make_classification, make_moons, make_regression)
from sklearn.model_selection import train_test_split
from sklearn.utils import class_weight
from sklearn.utils.class_weight import compute_class_weight, compute_sample_weight
y = np.array([0, 1, 1, 2, 2, 2, 1, 0, 2, 2])
X = np.random.rand(10, 3)
X32 = np.random.rand(10, 4).astype(np.float32)
"""

ROWS = [
    "compute_class_weight('balanced', classes=np.unique(y), y=y)",
    "compute_class_weight(class_weight='balanced', classes=np.arange(3), y=y)",
    "class_weight.compute_class_weight('balanced', classes=np.arange(3), y=y)",
    "compute_sample_weight('balanced', y)",
    "compute_sample_weight(class_weight='balanced', y=y)",
    "train_test_split(X, y, test_size=0.2, random_state=0)[0]",
    "train_test_split(X, y, test_size=0.2, random_state=0)[1]",
    "train_test_split(X, y, test_size=0.2, random_state=0)[3]",
    "train_test_split(X32, y, test_size=3)[0]",
    "train_test_split(X32, y)[1]",
    "train_test_split(X32, y, stratify=y, test_size=0.3)[2]",
    "make_classification()[0]", "make_classification()[1]",
    "make_classification(n_samples=50, n_features=4, n_informative=2, n_redundant=0)[0]",
    "make_classification(30, 5, n_informative=2, n_redundant=1, random_state=0)[1]",
    "make_moons()[0]", "make_moons(n_samples=30, noise=0.1)[1]", "make_moons((3, 5))[0]",
    "make_circles(40, noise=0.05, factor=0.5)[0]", "make_circles(n_samples=(4, 6))[1]",
    "make_blobs(n_samples=40, n_features=3, centers=2)[0]", "make_blobs(25)[1]",
    "make_regression(n_samples=20, n_features=5)[0]", "make_regression(n_samples=20, n_features=5)[1]",
    "make_regression(20, 5, n_targets=2)[1]",
    "load_iris(return_X_y=True)[0]", "load_iris(return_X_y=True)[1]", "load_digits(return_X_y=True)[0]",
    "load_breast_cancer(return_X_y=True)[1]", "load_wine(return_X_y=True)[0]",
]


@pytest.mark.parametrize("expr", ROWS)
def test_engine_agrees_with_sklearn(expr):
    source = PRELUDE + f"result = {expr}\n"
    engine = engine_globals(source).get("result")
    real = real_globals(source)["result"]
    assert contradiction(engine, real, require_known=expr != ROWS[0]) is None, expr


def test_class_weights_from_unique_labels_are_float64():
    # np.unique's length is data-dependent: the dtype is what the rules need
    source = PRELUDE + "result = compute_class_weight('balanced', classes=np.unique(y), y=y)\n"
    engine = engine_globals(source)["result"]
    assert engine.dtypes == frozenset({"float64"})
    assert str(real_globals(source)["result"].dtype) == "float64"


def test_balanced_class_weights_reach_the_loss_as_float64():
    # the classic report: "expected scalar type Float but found Double" from sklearn's weights
    from torch_runs import run_in_torch

    from torchtype_lint.checker.check import Settings, check_source
    from torchtype_lint.model.selection import Selection

    body = PRELUDE + (
        "weights = compute_class_weight('balanced', classes=np.unique(y), y=y)\n"
        "criterion = torch.nn.CrossEntropyLoss(weight=torch.tensor({cast}))\n"
        "loss = criterion(torch.randn(10, 3), torch.from_numpy(y))\n")
    bad, good = body.format(cast="weights"), body.format(cast="weights, dtype=torch.float32")
    settings = Settings(selection=Selection(select=["TTL"]))
    lines = [f.line for f in check_source(bad, "p.py", settings).findings if f.code == "TTL401"]
    assert lines == [bad.count("\n")]
    assert check_source(good, "p.py", settings).findings == []
    ran = run_in_torch({"bad": bad, "good": good})
    assert ran["bad"].startswith("RuntimeError") and ran["good"] == ""
