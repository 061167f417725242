"""A tiny image classifier trained on random data, with the kind of bugs torchtype-lint finds.

    torchtype-lint check examples/          # list them
    torchtype-lint rule TTL101              # explain one

Every line marked BUG is a real bug: run with torch, this script stops at the first one it
reaches (the conv layer rejects the uint8 images); fix that and it stops at the next.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, CLASSES = 8, 10


class SmallConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 8 * 8, 128)  # 32x32 images, pooled twice: 8x8
        self.fc2 = nn.Linear(64, CLASSES)  # BUG: fc1 produces 128 features

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def make_batch():
    images = torch.randint(0, 256, (BATCH, 3, 32, 32), dtype=torch.uint8)
    images.float()  # BUG: the cast is not in place, images stay uint8
    labels = torch.randint(0, CLASSES, (BATCH, 1))  # BUG: class indices must have shape (N,)
    return images, labels


def main():
    torch.manual_seed(0)
    model = SmallConvNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    images, labels = make_batch()
    logits = model(images)
    loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    weights = torch.ones(CLASSES)
    scores = logits.detach()
    print(weights @ scores)  # BUG: (10,) @ (8, 10): the contracted dimensions differ
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
