"""Fixed twin of 326_batchify_transposed_view_batch_size_bug.py: batchify makes the transposed series contiguous, so each slice can be viewed as (batch_size, -1).

family: shape
category: factories
expected: success
source: https://github.com/chickenbestlover/RNN-Time-series-Anomaly-Detection/issues/38
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def batchify(args, data, bsz):
    nbatch = data.size(0) // bsz
    trimmed_data = data.narrow(0, 0, nbatch * bsz)
    return trimmed_data.view(bsz, -1, trimmed_data.size(-1)).transpose(0, 1).contiguous()


def get_batch(args, source, i):
    seq_len = min(args.bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


class RNNPredictor(nn.Module):
    def __init__(self, enc_inp_size, rnn_hid_size, nlayers, dec_out_size):
        super().__init__()
        self.encoder = nn.Linear(enc_inp_size, rnn_hid_size)
        self.rnn = nn.LSTM(rnn_hid_size, rnn_hid_size, nlayers)
        self.decoder = nn.Linear(rnn_hid_size, dec_out_size)

    def forward(self, x, hidden=None):
        out, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(out), hidden


def train(args, model, train_dataset, epoch):
    model.train()
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for batch, i in enumerate(range(0, train_dataset.size(0) - 1, args.bptt)):
        inputSeq, targetSeq = get_batch(args, train_dataset, i)
        outSeq1, _ = model(inputSeq)
        loss1 = criterion(outSeq1.view(args.batch_size, -1), targetSeq.view(args.batch_size, -1))
        optimizer.zero_grad()
        loss1.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss1.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--bptt", type=int, default=10)
    parser.add_argument("--nhid", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    series = torch.from_numpy(np.sin(np.arange(200) / 5.0)[:, None] + 0.1 * rng.standard_normal((200, 1))).float()
    train_dataset = batchify(args, series, args.batch_size)
    model = RNNPredictor(1, args.nhid, 2, 1)
    train(args, model, train_dataset, epoch=1)
