"""Bug: the target factory builds class labels with the legacy torch.Tensor(list) constructor, which always makes float32; cross_entropy needs int64 class indices.

family: class-target
category: factories
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Float
source: https://github.com/mecarill/classawareteacher/issues/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ["car", "person", "bike", "truck"]


def make_targets(annotations):
    ids = [CLASSES.index(a["label"]) for a in annotations]
    return torch.Tensor(ids)  # cause: torch.Tensor(...) gives float32


def fake_annotations(n):
    return [{"label": CLASSES[i % len(CLASSES)], "box": [0, 0, 10, 10]} for i in range(n)]


class RoiHead(nn.Module):
    def __init__(self, in_dim, n_classes):
        super().__init__()
        self.fc = nn.Linear(in_dim, 32)
        self.cls_score = nn.Linear(32, n_classes)

    def forward(self, feats):
        return self.cls_score(F.relu(self.fc(feats)))


def loss_cls(head, feats, annotations):
    scores = head(feats)
    gt_classes = make_targets(annotations)
    return F.cross_entropy(scores, gt_classes)  # bug: float32 class ids


if __name__ == "__main__":
    head = RoiHead(16, len(CLASSES))
    anns = fake_annotations(8)
    feats = torch.randn(len(anns), 16)
    loss = loss_cls(head, feats, anns)
    loss.backward()
    print(loss.item())
