"""Bug: run_main builds the forecasting model in float32 and then converts it with model.to(torch.bfloat16) to save memory, but each batch is still cast with batch_x.float(); the float32 patches reach the bfloat16 patch-embedding Linear.

family: precision
category: mutated-modules
expected: RuntimeError
message: expected m1 and m2 to have the same dtype, but got: float != c10::BFloat16
source: https://github.com/KimMeen/Time-LLM/issues/3
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Dataset_Custom(Dataset):
    def __init__(self, seq_len, pred_len, n=64, seed=0):
        rng = np.random.default_rng(seed)
        self.data = np.cumsum(rng.standard_normal((n, 1)), axis=0)
        self.seq_len, self.pred_len = seq_len, pred_len

    def __len__(self):
        return len(self.data) - self.seq_len - self.pred_len + 1

    def __getitem__(self, i):
        return self.data[i:i + self.seq_len], self.data[i + self.seq_len:i + self.seq_len + self.pred_len]


class PatchEmbedding(nn.Module):
    def __init__(self, d_model, patch_len, stride):
        super().__init__()
        self.patch_len, self.stride = patch_len, stride
        self.value_embedding = nn.Linear(patch_len, d_model, bias=False)

    def forward(self, x):
        x = x.unfold(dimension=-1, size=self.patch_len, step=self.stride)
        return self.value_embedding(x)  # bug: float32 patches into the bfloat16 Linear


class Model(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.patch_embedding = PatchEmbedding(args.d_model, args.patch_len, args.stride)
        n_patches = (args.seq_len - args.patch_len) // args.stride + 1
        self.output_projection = nn.Linear(args.d_model * n_patches, args.pred_len)

    def forward(self, x_enc):
        means = x_enc.mean(1, keepdim=True).detach()
        x_enc = (x_enc - means).permute(0, 2, 1)
        enc_out = self.patch_embedding(x_enc)
        dec_out = self.output_projection(enc_out.flatten(2)).permute(0, 2, 1)
        return dec_out + means


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Time-LLM")
    parser.add_argument("--seq_len", type=int, default=16)
    parser.add_argument("--pred_len", type=int, default=4)
    parser.add_argument("--d_model", type=int, default=16)
    parser.add_argument("--patch_len", type=int, default=4)
    parser.add_argument("--stride", type=int, default=2)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train_loader = DataLoader(Dataset_Custom(args.seq_len, args.pred_len), batch_size=8, shuffle=True)
    model = Model(args).float()
    model = model.to(torch.bfloat16)  # cause: the model becomes bfloat16 after construction
    model_optim = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    criterion = nn.MSELoss()
    for i, (batch_x, batch_y) in enumerate(train_loader):
        batch_x, batch_y = batch_x.float(), batch_y.float()
        outputs = model(batch_x)
        loss = criterion(outputs.float(), batch_y)
        model_optim.zero_grad()
        loss.backward()
        model_optim.step()
    print(f"train loss {loss.item():.4f}")
