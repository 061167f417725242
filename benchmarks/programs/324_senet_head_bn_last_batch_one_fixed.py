"""Fixed twin of 324_senet_head_bn_last_batch_one_bug.py: the training loader drops the incomplete last batch, so the head's BatchNorm1d always sees four images.

family: shape
category: data-paths
expected: success
source: https://github.com/fastai/fastai/issues/1352
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SEBlock(nn.Module):
    def __init__(self, ch, reduction=4):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU())
        self.fc1 = nn.Conv2d(ch, ch // reduction, 1)
        self.fc2 = nn.Conv2d(ch // reduction, ch, 1)

    def forward(self, x):
        x = self.conv(x)
        w = torch.sigmoid(self.fc2(F.relu(self.fc1(F.adaptive_avg_pool2d(x, 1)))))
        return x * w


def senet_body():
    return nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(), SEBlock(16), SEBlock(16))


class AdaptiveConcatPool2d(nn.Module):
    def forward(self, x):
        return torch.cat([F.adaptive_max_pool2d(x, 1), F.adaptive_avg_pool2d(x, 1)], 1)


def create_head(nf, nc, ps=0.5):
    return nn.Sequential(AdaptiveConcatPool2d(), nn.Flatten(), nn.BatchNorm1d(nf), nn.Dropout(ps / 2),
                         nn.Linear(nf, 32), nn.ReLU(), nn.BatchNorm1d(32), nn.Dropout(ps), nn.Linear(32, nc))


def create_cnn(num_classes):
    return nn.Sequential(senet_body(), create_head(2 * 16, num_classes))


def image_data_bunch(n_train=9, size=32, bs=4, num_classes=5):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n_train, 3, size, size, generator=g)
    y = torch.randint(0, num_classes, (n_train,), generator=g)
    return DataLoader(TensorDataset(x, y), batch_size=bs, shuffle=True, generator=g, drop_last=True)


def fit_one_cycle(model, train_dl, epochs=1, lr=1e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for epoch in range(epochs):
        for xb, yb in train_dl:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} train_loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    learn_model = create_cnn(num_classes=5)
    fit_one_cycle(learn_model, image_data_bunch())
