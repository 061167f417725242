"""Fixed twin of 321_text_cnn_pool_squeeze_residue_batch_bug.py: conv_and_pool squeezes only the pooled length dimension (squeeze(2)), so a one-sentence batch keeps its batch dimension.

family: shape
category: data-paths
expected: success
source: https://github.com/649453932/Bert-Chinese-Text-Classification-Pytorch/issues/81
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    def __init__(self):
        self.n_vocab, self.embed, self.pad_size, self.num_classes = 60, 16, 12, 4
        self.filter_sizes, self.num_filters = (2, 3, 4), 8
        self.batch_size, self.learning_rate, self.num_epochs = 4, 1e-3, 1


class DatasetIterater:
    def __init__(self, batches, batch_size):
        self.batch_size, self.batches = batch_size, batches
        self.n_batches = len(batches) // batch_size
        self.residue = len(batches) % self.n_batches != 0
        self.index = 0

    def _to_tensor(self, datas):
        x = torch.LongTensor(np.array([d[0] for d in datas]))
        y = torch.LongTensor([d[1] for d in datas])
        return x, y

    def __next__(self):
        if self.residue and self.index == self.n_batches:
            batches = self.batches[self.index * self.batch_size: len(self.batches)]
            self.index += 1
            return self._to_tensor(batches)
        if self.index >= self.n_batches + int(self.residue):
            self.index = 0
            raise StopIteration
        batches = self.batches[self.index * self.batch_size: (self.index + 1) * self.batch_size]
        self.index += 1
        return self._to_tensor(batches)

    def __iter__(self):
        return self


def build_dataset(config, n=9):
    rng = np.random.default_rng(0)
    return [(rng.integers(1, config.n_vocab, size=config.pad_size), int(rng.integers(0, config.num_classes))) for _ in range(n)]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embedding = nn.Embedding(config.n_vocab, config.embed, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv2d(1, config.num_filters, (k, config.embed)) for k in config.filter_sizes])
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(config.num_filters * len(config.filter_sizes), config.num_classes)

    def conv_and_pool(self, x, conv):
        x = F.relu(conv(x)).squeeze(3)
        return F.max_pool1d(x, x.size(2)).squeeze(2)

    def forward(self, x):
        out = self.embedding(x).unsqueeze(1)
        out = torch.cat([self.conv_and_pool(out, conv) for conv in self.convs], 1)
        return self.fc(self.dropout(out))


def train(config, model, train_iter):
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    for epoch in range(config.num_epochs):
        for trains, labels in train_iter:
            outputs = model(trains)
            loss = F.cross_entropy(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            predic = torch.max(outputs.data, 1)[1]
        print(f"epoch {epoch} loss {loss.item():.4f} acc {(predic == labels).float().mean().item():.2f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    config = Config()
    train_iter = DatasetIterater(build_dataset(config), config.batch_size)
    train(config, Model(config), train_iter)
