"""Bug: a setup helper stores the training dtype on args (args.dtype = torch.float16 because --fp16 defaults to on); the model is moved to args.dtype elsewhere and the batch built by another helper stays float32.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/Yu-Fangxu/COLD-Attack/issues/20
"""
import argparse

import torch
import torch.nn as nn


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", type=int, default=1, help="1: train in float16")
    parser.add_argument("--dim", type=int, default=24)
    parser.add_argument("--batch-size", type=int, default=5)
    return parser


def setup(args):
    args.dtype = torch.float16 if args.fp16 else torch.float32  # cause: float16 with the default --fp16=1
    args.device = torch.device("cpu")


def build_model(args):
    model = nn.Sequential(nn.Linear(args.dim, args.dim), nn.GELU(), nn.Linear(args.dim, 2))
    return model.to(args.device, args.dtype)


def make_batch(args):
    x = torch.randn(args.batch_size, args.dim, device=args.device)
    y = torch.randint(0, 2, (args.batch_size,), device=args.device)
    return x, y


def main():
    args = get_parser().parse_args()
    setup(args)
    model = build_model(args)
    x, y = make_batch(args)
    logits = model(x)  # bug: float32 batch into float16 layers
    print(nn.functional.cross_entropy(logits.float(), y).item())


if __name__ == "__main__":
    main()
