"""Bug: the README command (and so the default here) trains with --loss ce, but CMU-MOSEI emotions are multi-label: each target is a 6-wide 0/1 row of ints, and CrossEntropyLoss reads a target shaped like the logits as class probabilities and refuses the integer rows.

family: class-target
category: configuration
expected: RuntimeError
message: Expected floating point type for target with class probabilities
source: https://github.com/wenliangdai/Modality-Transferable-MER/issues/3
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", type=str, default="mosei_emo")
    parser.add_argument("--loss", type=str, default="ce", choices=["ce", "bce"])
    parser.add_argument("--num-emotions", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=1)
    return parser.parse_args()


class MOSEIEmotion(Dataset):
    def __init__(self, n, num_emotions):
        rng = np.random.default_rng(0)
        self.text = rng.standard_normal((n, 10, 20)).astype(np.float32)
        self.audio = rng.standard_normal((n, 10, 8)).astype(np.float32)
        self.labels = (rng.random((n, num_emotions)) > 0.6).astype(np.int64)  # cause: multi-hot int rows

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.text[i]), torch.from_numpy(self.audio[i]), torch.from_numpy(self.labels[i])


class EmotionModel(nn.Module):
    def __init__(self, num_emotions, hidden=16):
        super().__init__()
        self.text_rnn = nn.GRU(20, hidden, batch_first=True)
        self.audio_rnn = nn.GRU(8, hidden, batch_first=True)
        self.out = nn.Linear(2 * hidden, num_emotions)

    def forward(self, text, audio):
        _, ht = self.text_rnn(text)
        _, ha = self.audio_rnn(audio)
        return self.out(torch.cat([ht[-1], ha[-1]], dim=1))


def get_loss(name):
    if name == "bce":
        return lambda logits, y: nn.functional.binary_cross_entropy_with_logits(logits, y.float())
    return nn.CrossEntropyLoss()


def train(args):
    torch.manual_seed(0)
    loader = DataLoader(MOSEIEmotion(12, args.num_emotions), batch_size=args.batch_size, shuffle=True)
    model = EmotionModel(args.num_emotions)
    criterion = get_loss(args.loss)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for text, audio, y in loader:
            logits = model(text, audio)
            loss = criterion(logits, y)  # bug: CrossEntropyLoss on (4, 6) integer multi-hot targets
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    train(get_args())
