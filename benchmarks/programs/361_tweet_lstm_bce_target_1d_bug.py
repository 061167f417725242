"""Bug: the tweet classifier ends in a sigmoid over fc2's single unit, so its predictions are (64, 1), while the DataLoader yields the labels as a (64,) vector; binary_cross_entropy refuses targets shaped differently from its input.

family: class-target
category: model-outputs
expected: ValueError
message: Using a target size (torch.Size([64])) that is different to the input size (torch.Size([64, 1])) is deprecated
source: https://github.com/FernandoLpz/Text-Classification-LSTMs-PyTorch/issues/9
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class DatasetMaper(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


class TweetClassifier(nn.ModuleList):
    def __init__(self, args):
        super().__init__()
        self.hidden_dim = args.hidden_dim
        self.LSTM_layers = args.lstm_layers
        self.dropout = nn.Dropout(0.5)
        self.embedding = nn.Embedding(args.max_words, self.hidden_dim, padding_idx=0)
        self.lstm = nn.LSTM(self.hidden_dim, self.hidden_dim, num_layers=self.LSTM_layers, batch_first=True)
        self.fc1 = nn.Linear(self.hidden_dim, 257)
        self.fc2 = nn.Linear(257, 1)

    def forward(self, x):
        h = torch.zeros(self.LSTM_layers, x.size(0), self.hidden_dim)
        c = torch.zeros(self.LSTM_layers, x.size(0), self.hidden_dim)
        out, (hidden, cell) = self.lstm(self.embedding(x), (h, c))
        out = self.dropout(out)
        out = torch.relu_(self.fc1(out[:, -1, :]))
        out = self.dropout(out)
        return torch.sigmoid(self.fc2(out))


def prepare_tokens(n, max_len, max_words, rng):
    x = rng.integers(1, max_words, size=(n, max_len))
    y = rng.integers(0, 2, size=n)
    return x, y


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_words", type=int, default=100)
    parser.add_argument("--max_len", type=int, default=12)
    parser.add_argument("--hidden_dim", type=int, default=16)
    parser.add_argument("--lstm_layers", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.01)
    args = parser.parse_args([])
    torch.manual_seed(0)
    x_train, y_train = prepare_tokens(128, args.max_len, args.max_words, np.random.default_rng(0))
    loader_training = DataLoader(DatasetMaper(x_train, y_train), batch_size=args.batch_size)
    model = TweetClassifier(args)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=args.learning_rate)
    for epoch in range(1):
        model.train()
        for x_batch, y_batch in loader_training:
            x = x_batch.type(torch.LongTensor)
            y = y_batch.type(torch.FloatTensor)  # cause: labels stay a (batch,) vector
            y_pred = model(x)
            loss = F.binary_cross_entropy(y_pred, y)  # bug: (64, 1) predictions against (64,) labels
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.5f}")
