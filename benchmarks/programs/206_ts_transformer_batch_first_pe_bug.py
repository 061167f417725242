"""Bug: the hyperparameters set batch_first=True and the encoder layers follow it, but the positional encoder keeps its table laid out (max_seq_len, 1, d_model) and slices it by the sequence length; added to a (batch, seq, d_model) input it cannot broadcast against the batch dimension.

family: shape
category: configuration
expected: RuntimeError
message: must match the size of tensor b (12) at non-singleton dimension 0
source: https://github.com/KasperGroesLudvigsen/influenza_transformer/issues/9
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

hyperparams = dict(dim_val=16, n_heads=2, n_encoder_layers=2, enc_seq_len=12, output_len=3,
                   input_size=1, batch_first=True, batch_size=4, max_seq_len=100)


class PositionalEncoder(nn.Module):
    def __init__(self, dropout=0.1, max_seq_len=5000, d_model=512, batch_first=False):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.x_dim = 1 if batch_first else 0
        position = torch.arange(max_seq_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_seq_len, 1, d_model)  # cause: (seq, 1, d_model) whatever batch_first says
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(self.x_dim)]  # bug: (4, 12, 16) + (12, 1, 16)
        return self.dropout(x)


class TimeSeriesTransformer(nn.Module):
    def __init__(self, input_size, dim_val, n_heads, n_encoder_layers, output_len, max_seq_len, batch_first):
        super().__init__()
        self.encoder_input_layer = nn.Linear(input_size, dim_val)
        self.positional_encoding_layer = PositionalEncoder(d_model=dim_val, max_seq_len=max_seq_len,
                                                           batch_first=batch_first)
        layer = nn.TransformerEncoderLayer(d_model=dim_val, nhead=n_heads, dim_feedforward=32, batch_first=batch_first)
        self.encoder = nn.TransformerEncoder(layer, num_layers=n_encoder_layers)
        self.head = nn.Linear(dim_val, output_len)

    def forward(self, src):
        src = self.positional_encoding_layer(self.encoder_input_layer(src))
        return self.head(self.encoder(src)[:, -1])


def main(hp):
    torch.manual_seed(0)
    series = torch.sin(torch.linspace(0, 20, 40 + hp["enc_seq_len"] + hp["output_len"]))
    windows = series.unfold(0, hp["enc_seq_len"] + hp["output_len"], 1)
    src = windows[:, : hp["enc_seq_len"]].unsqueeze(-1)
    tgt = windows[:, hp["enc_seq_len"]:]
    loader = DataLoader(TensorDataset(src, tgt), batch_size=hp["batch_size"], shuffle=True)
    model = TimeSeriesTransformer(hp["input_size"], hp["dim_val"], hp["n_heads"], hp["n_encoder_layers"],
                                  hp["output_len"], hp["max_seq_len"], hp["batch_first"])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main(hyperparams)
