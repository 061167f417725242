"""Bug: the video dataset builds its label index array as 32-bit ints (np.int32, what dtype=int means on the reporter's Windows numpy) and __getitem__ returns torch.from_numpy of it; CrossEntropyLoss refuses Int class targets.

family: class-target
category: factories
expected: RuntimeError
message: expected target dtype to be Long
source: https://github.com/jfzhang95/pytorch-video-recognition/issues/71
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class VideoDataset(Dataset):
    def __init__(self, clip_len=4, crop_size=16, n_videos=8):
        rng = np.random.default_rng(0)
        labels = [["ApplyEyeMakeup", "Archery", "Basketball"][i % 3] for i in range(n_videos)]
        self.label2index = {label: index for index, label in enumerate(sorted(set(labels)))}
        self.label_array = np.array([self.label2index[label] for label in labels], dtype=np.int32)  # cause: 32-bit class indices
        self.clips = rng.random((n_videos, clip_len, crop_size, crop_size, 3)).astype(np.float32)

    def __len__(self):
        return len(self.label_array)

    def __getitem__(self, index):
        buffer = self.clips[index].transpose((3, 0, 1, 2))
        labels = np.array(self.label_array[index])
        return torch.from_numpy(buffer.copy()), torch.from_numpy(labels)


class C3D(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv3d(3, 8, kernel_size=3, padding=1)
        self.pool1 = nn.MaxPool3d(kernel_size=(1, 2, 2), stride=(1, 2, 2))
        self.conv2 = nn.Conv3d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.pool1(torch.relu(self.conv1(x)))
        x = torch.relu(self.conv2(x)).mean(dim=(2, 3, 4))
        return self.fc(x)


def train_model(num_epochs=1):
    torch.manual_seed(0)
    train_dataloader = DataLoader(VideoDataset(), batch_size=4, shuffle=True)
    model = C3D(num_classes=3)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    for epoch in range(num_epochs):
        running_loss = 0.0
        for inputs, labels in train_dataloader:
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)  # bug: int32 labels into CrossEntropyLoss
            loss.backward()
            optimizer.step()
            running_loss += loss.item() * inputs.size(0)
        print(f"epoch {epoch}: {running_loss / len(train_dataloader.dataset):.4f}")


if __name__ == "__main__":
    train_model()
