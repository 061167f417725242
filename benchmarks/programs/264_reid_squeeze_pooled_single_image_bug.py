"""Bug: the re-ID backbone flattens its pooled (N, 512, 1, 1) features with torch.squeeze(x); training skips short batches, but 33 gallery crops in batches of 8 leave one crop for feature extraction, squeeze also drops its batch dimension, and the ClassBlock's BatchNorm1d gets a 1-D vector.

family: shape
category: data-paths
expected: ValueError
message: expected 2D or 3D input (got 1D input)
source: https://github.com/layumi/Person_reID_baseline_pytorch/issues/77
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ClassBlock(nn.Module):
    def __init__(self, input_dim, class_num, num_bottleneck=128, droprate=0.5):
        super().__init__()
        self.add_block = nn.Sequential(
            nn.Linear(input_dim, num_bottleneck), nn.BatchNorm1d(num_bottleneck), nn.LeakyReLU(0.1), nn.Dropout(droprate)
        )
        self.classifier = nn.Linear(num_bottleneck, class_num)

    def forward(self, x):
        x = self.add_block(x)  # bug: a 1-D feature vector reaches BatchNorm1d
        return self.classifier(x)


class ft_net(nn.Module):
    def __init__(self, class_num):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 512, 3, stride=2, padding=1), nn.BatchNorm2d(512), nn.ReLU(),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = ClassBlock(512, class_num)

    def forward(self, x):
        x = self.avgpool(self.model(x))
        x = torch.squeeze(x)  # cause: squeezes the batch dimension of a batch of one too
        return self.classifier(x)


def train_model(model, loader, batchsize, num_epochs=2):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(num_epochs):
        model.train()
        for inputs, labels in loader:
            if inputs.size(0) < batchsize:  # skip the last batch
                continue
            loss = criterion(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def extract_feature(model, loader):
    model.eval()
    model.classifier.classifier = nn.Sequential()
    features = []
    with torch.no_grad():
        for inputs, _ in loader:
            features.append(nn.functional.normalize(model(inputs), dim=1))
    return torch.cat(features)


torch.manual_seed(0)
batchsize = 8
train_loader = DataLoader(TensorDataset(torch.rand(48, 3, 32, 16), torch.randint(0, 6, (48,))), batch_size=batchsize, shuffle=True)
gallery_loader = DataLoader(TensorDataset(torch.rand(33, 3, 32, 16), torch.randint(0, 6, (33,))), batch_size=batchsize)
model = ft_net(class_num=6)
train_model(model, train_loader, batchsize)
gallery_feature = extract_feature(model, gallery_loader)
print("gallery features:", tuple(gallery_feature.shape))
