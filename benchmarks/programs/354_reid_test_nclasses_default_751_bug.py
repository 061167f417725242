"""Bug: train.py sizes the re-ID classifier from the training identities (6 here), but test.py rebuilds ft_net from its --nclasses default of 751 (Market-1501) before loading the saved weights, so load_state_dict rejects the classifier.

family: shape
category: configuration
expected: RuntimeError
message: size mismatch for classifier.classifier.0.weight
source: https://github.com/layumi/Person_reID_baseline_pytorch/issues/103
"""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class ClassBlock(nn.Module):
    def __init__(self, input_dim, class_num, droprate=0.5, num_bottleneck=16):
        super().__init__()
        self.add_block = nn.Sequential(nn.Linear(input_dim, num_bottleneck), nn.BatchNorm1d(num_bottleneck), nn.Dropout(p=droprate))
        self.classifier = nn.Sequential(nn.Linear(num_bottleneck, class_num))

    def forward(self, x):
        return self.classifier(self.add_block(x))


class ft_net(nn.Module):
    def __init__(self, class_num, droprate=0.5):
        super().__init__()
        self.model = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = ClassBlock(8, class_num, droprate)

    def forward(self, x):
        return self.classifier(self.model(x).flatten(1))


def train(save_path, class_names):
    model = ft_net(len(class_names))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images, labels = torch.rand(12, 3, 32, 16), torch.arange(12) % len(class_names)
    for epoch in range(2):
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"train epoch {epoch} loss {loss.item():.4f}")
    torch.save(model.state_dict(), save_path)


def load_network(network, save_path):
    network.load_state_dict(torch.load(save_path))  # bug: a 6-way checkpoint into a 751-way classifier
    return network


def test(opt, save_path):
    model_structure = ft_net(opt.nclasses)
    model = load_network(model_structure, save_path)
    model.classifier.classifier = nn.Sequential()
    model.eval()
    with torch.no_grad():
        query, gallery = model(torch.rand(4, 3, 32, 16)), model(torch.rand(6, 3, 32, 16))
    scores = F.normalize(query, dim=1) @ F.normalize(gallery, dim=1).t()
    print("rank-1 gallery index per query:", scores.argmax(dim=1).tolist())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Test")
    parser.add_argument("--which_epoch", default="last", type=str)
    parser.add_argument("--nclasses", default=751, type=int, help="number of identities the model was trained on")  # cause: Market-1501's 751, the training set had 6
    opt = parser.parse_args([])
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as name:
        save_path = os.path.join(name, f"net_{opt.which_epoch}.pth")
        train(save_path, class_names=[f"{i:04d}" for i in range(6)])
        test(opt, save_path)
