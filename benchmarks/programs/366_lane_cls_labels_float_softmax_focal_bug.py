"""Bug: the lane dataset builds its row-anchor classification labels with np.zeros (float64) and the loader turns them into a float tensor, so the softmax focal loss hands float targets to nll_loss.

family: class-target
category: data-paths
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Float
source: https://github.com/cfzd/Ultra-Fast-Lane-Detection/issues/127
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

GRIDING_NUM, ROW_ANCHORS, NUM_LANES = 20, 6, 2


class LaneClsDataset(Dataset):
    def __init__(self, n=8, h=32, w=64, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.random((n, 3, h, w), dtype=np.float32)
        self.points = rng.integers(-1, w, (n, ROW_ANCHORS, NUM_LANES))

    def _grid_pts(self, pts, w=64):
        cls_label = np.zeros((ROW_ANCHORS, NUM_LANES))  # cause: float64 label array
        for i in range(NUM_LANES):
            lane = pts[:, i]
            cls_label[:, i] = np.where(lane < 0, GRIDING_NUM, lane * GRIDING_NUM // w)
        return cls_label

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        label = self._grid_pts(self.points[idx])
        return torch.from_numpy(self.images[idx]), torch.from_numpy(label).float()


class SoftmaxFocalLoss(nn.Module):
    def __init__(self, gamma):
        super().__init__()
        self.gamma = gamma
        self.nll = nn.NLLLoss()

    def forward(self, logits, labels):
        scores = F.softmax(logits, dim=1)
        factor = torch.pow(1.0 - scores, self.gamma)
        log_score = factor * F.log_softmax(logits, dim=1)
        return self.nll(log_score, labels)  # bug: labels are float


class ParsingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=4, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((4, 8)))
        self.cls = nn.Linear(8 * 4 * 8, (GRIDING_NUM + 1) * ROW_ANCHORS * NUM_LANES)

    def forward(self, x):
        fea = self.backbone(x).flatten(1)
        return self.cls(fea).view(-1, GRIDING_NUM + 1, ROW_ANCHORS, NUM_LANES)


def calc_loss(loss_dict, results):
    loss = 0
    for op, weight, keys in zip(loss_dict["op"], loss_dict["weight"], loss_dict["data_src"]):
        datas = [results[k] for k in keys]
        loss = loss + op(*datas) * weight
    return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    net = ParsingNet()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    loss_dict = {"op": [SoftmaxFocalLoss(2)], "weight": [1.0], "data_src": [("cls_out", "cls_label")]}
    for img, cls_label in DataLoader(LaneClsDataset(), batch_size=4, shuffle=True):
        results = {"cls_out": net(img), "cls_label": cls_label}
        loss = calc_loss(loss_dict, results)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("loss", loss.item())
