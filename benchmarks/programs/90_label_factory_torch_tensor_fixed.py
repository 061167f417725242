"""Fixed twin of 90_label_factory_torch_tensor_bug.py: the labels are built with torch.tensor (int64).

family: class-target
expected: success
source: https://github.com/mecarill/classawareteacher/issues/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ["car", "person", "bike", "truck"]


def make_targets(annotations):
    ids = [CLASSES.index(a["label"]) for a in annotations]
    return torch.tensor(ids)


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
    return F.cross_entropy(scores, gt_classes)


if __name__ == "__main__":
    head = RoiHead(16, len(CLASSES))
    anns = fake_annotations(8)
    feats = torch.randn(len(anns), 16)
    loss = loss_cls(head, feats, anns)
    loss.backward()
    print(loss.item())
