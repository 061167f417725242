"""Bug: an hparams dict switches on "use_double" for the feature extractor (copied from a numerics experiment); the factory returns float64 features that reach the float32 classifier.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/eriklindernoren/PyTorch-YOLOv3/issues/523
"""
import torch
import torch.nn as nn

HPARAMS = {
    "extractor": {"in_dim": 9, "out_dim": 12, "use_double": True},
    "classifier": {"hidden": 16, "classes": 3},
}


def make_extractor(hp):
    net = nn.Sequential(nn.Linear(hp["in_dim"], hp["out_dim"]), nn.Tanh())
    if hp["use_double"]:
        net = net.double()  # cause: the extractor computes in float64
    return net


def make_classifier(hp, in_dim):
    return nn.Sequential(nn.Linear(in_dim, hp["hidden"]), nn.ReLU(), nn.Linear(hp["hidden"], hp["classes"]))


def describe(hp):
    return ", ".join(f"{k}={v}" for k, v in sorted(hp.items()))


def predict(extractor, classifier, x):
    feats = extractor(x)
    return classifier(feats)  # bug: float64 features into the float32 classifier


if __name__ == "__main__":
    extractor = make_extractor(HPARAMS["extractor"])
    classifier = make_classifier(HPARAMS["classifier"], HPARAMS["extractor"]["out_dim"])
    print(describe(HPARAMS["extractor"]))
    x = torch.randn(5, HPARAMS["extractor"]["in_dim"], dtype=torch.float64)
    print(predict(extractor, classifier, x).argmax(1).tolist())
