"""Fixed twin of 43_sensor_csv_rows_bug.py: the parsed rows are made float32.

family: numpy-float64
expected: success
"""
import argparse
import csv
import os

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
COLUMNS = ("temp", "humidity", "pressure", "vibration")


def write_fake_log(path, n_rows=64, seed=0):
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(list(COLUMNS) + ["failed"])
        for _ in range(n_rows):
            temp, hum, pres, vib = rng.normal(size=4)
            writer.writerow([f"{temp:.4f}", f"{hum:.4f}", f"{pres:.4f}", f"{vib:.4f}", int(vib > 0.5)])


def read_log(path):
    features, labels = [], []
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            features.append([float(row[c]) for c in COLUMNS])
            labels.append(int(row["failed"]))
    return np.array(features, dtype=np.float32), np.array(labels)


def standardize(x):
    mu, sigma = x.mean(axis=0), x.std(axis=0)
    return (x - mu) / (sigma + 1e-6)


def main():
    parser = argparse.ArgumentParser(description="predict machine failures from sensor logs")
    parser.add_argument("--csv", default="sensors.csv")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()

    if not os.path.exists(args.csv):
        write_fake_log(args.csv)
    X, y = read_log(args.csv)
    X = torch.from_numpy(standardize(X))
    y = torch.from_numpy(y)

    model = nn.Sequential(nn.Linear(len(COLUMNS), 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        perm = torch.randperm(len(X))
        for start in range(0, len(X), args.batch_size):
            idx = perm[start:start + args.batch_size]
            logits = model(X[idx])
            loss = nn.functional.cross_entropy(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
