"""Fixed twin of 303_dann_small_batch_last_target_batch_bn_bug.py: the loaders drop the last incomplete batch, so no batch of one reaches the BatchNorm1d layers.

family: shape
category: data-paths
expected: success
source: https://github.com/fungtion/DANN_py3/issues/8
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Function
from torch.utils.data import DataLoader, TensorDataset


class ReverseLayerF(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.alpha, None


class CNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature = nn.Sequential(nn.Conv2d(3, 8, 5), nn.BatchNorm2d(8), nn.MaxPool2d(2), nn.ReLU(True),
                                     nn.Conv2d(8, 12, 5), nn.BatchNorm2d(12), nn.MaxPool2d(2), nn.ReLU(True))
        self.class_classifier = nn.Sequential(nn.Linear(12 * 4 * 4, 100), nn.BatchNorm1d(100), nn.ReLU(True), nn.Linear(100, 10))
        self.domain_classifier = nn.Sequential(nn.Linear(12 * 4 * 4, 100), nn.BatchNorm1d(100), nn.ReLU(True), nn.Linear(100, 2))

    def forward(self, input_data, alpha):
        feature = self.feature(input_data).view(-1, 12 * 4 * 4)
        reverse_feature = ReverseLayerF.apply(feature, alpha)
        return self.class_classifier(feature), self.domain_classifier(reverse_feature)


def make_loader(n, batch_size, seed):
    g = torch.Generator().manual_seed(seed)
    ds = TensorDataset(torch.randn(n, 3, 28, 28, generator=g), torch.randint(0, 10, (n,), generator=g))
    return DataLoader(ds, batch_size=batch_size, shuffle=True, generator=g, drop_last=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--n_epoch", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    my_net = CNNModel()
    optimizer = torch.optim.Adam(my_net.parameters(), lr=1e-3)
    loss_class, loss_domain = nn.NLLLoss(), nn.NLLLoss()
    dataloader_source = make_loader(40, args.batch_size, 1)
    dataloader_target = make_loader(33, args.batch_size, 2)
    for epoch in range(args.n_epoch):
        len_dataloader = min(len(dataloader_source), len(dataloader_target))
        data_source_iter, data_target_iter = iter(dataloader_source), iter(dataloader_target)
        for i in range(len_dataloader):
            p = float(i + epoch * len_dataloader) / args.n_epoch / len_dataloader
            alpha = 2.0 / (1.0 + np.exp(-10 * p)) - 1
            s_img, s_label = next(data_source_iter)
            class_output, domain_output = my_net(s_img, alpha)
            err_s_label = loss_class(class_output.log_softmax(1), s_label)
            err_s_domain = loss_domain(domain_output.log_softmax(1), torch.zeros(len(s_img), dtype=torch.long))
            t_img, _ = next(data_target_iter)
            _, domain_output = my_net(t_img, alpha)
            err_t_domain = loss_domain(domain_output.log_softmax(1), torch.ones(len(t_img), dtype=torch.long))
            err = err_t_domain + err_s_domain + err_s_label
            optimizer.zero_grad()
            err.backward()
            optimizer.step()
        print(f"epoch {epoch} err {err.item():.4f}")


if __name__ == "__main__":
    main()
