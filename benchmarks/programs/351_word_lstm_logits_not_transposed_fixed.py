"""Fixed twin of 351_word_lstm_logits_not_transposed_bug.py: the loss gets output.transpose(1, 2), i.e. (batch, vocab, seq_len) logits, as CrossEntropyLoss expects for sequence targets.

family: shape
category: model-outputs
expected: success
source: https://github.com/markhliu/DGAI/issues/7
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

seq_len, batch_size = 20, 8


def make_sequences(n_tokens=1300, vocab=50):
    rng = np.random.default_rng(0)
    wordidx = rng.integers(0, vocab, n_tokens)
    xys = []
    for n in range(0, len(wordidx) - seq_len - 1, seq_len):
        x = wordidx[n:n + seq_len]
        y = wordidx[n + 1:n + seq_len + 1]
        xys.append((torch.tensor(x), torch.tensor(y)))
    xs, ys = zip(*xys[:64])
    return TensorDataset(torch.stack(xs), torch.stack(ys)), vocab


class WordLSTM(nn.Module):
    def __init__(self, input_size, n_embed=32, n_layers=2, drop_prob=0.2):
        super().__init__()
        self.n_layers, self.n_embed = n_layers, n_embed
        self.embedding = nn.Embedding(input_size, n_embed)
        self.lstm = nn.LSTM(input_size=n_embed, hidden_size=n_embed, num_layers=n_layers, dropout=drop_prob, batch_first=True)
        self.fc = nn.Linear(n_embed, input_size)

    def forward(self, x, hc):
        embed = self.embedding(x)
        x, hc = self.lstm(embed, hc)
        x = self.fc(x)
        return x, hc

    def init_hidden(self, n_seqs):
        weight = next(self.parameters()).data
        return (weight.new(self.n_layers, n_seqs, self.n_embed).zero_(),
                weight.new(self.n_layers, n_seqs, self.n_embed).zero_())


if __name__ == "__main__":
    torch.manual_seed(0)
    data, count = make_sequences()
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)
    model = WordLSTM(count)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_func = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(2):
        tloss = 0
        sh, sc = model.init_hidden(batch_size)
        for i, (x, y) in enumerate(loader):
            inputs, targets = x, y
            output, (sh, sc) = model(inputs, (sh, sc))
            loss = loss_func(output.transpose(1, 2), targets)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5)
            optimizer.step()
            sh, sc = sh.detach(), sc.detach()
            tloss += loss.item()
        print(f"at epoch {epoch}, average loss is {tloss / (i + 1):.4f}")
