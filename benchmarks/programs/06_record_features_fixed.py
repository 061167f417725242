"""Fixed twin of 06_record_features_bug.py: the feature vector is built with dtype=np.float32.

family: numpy-float64
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

np.random.seed(0)
torch.manual_seed(0)


def make_records(n=40):
    ages = np.random.randint(18, 80, size=n)
    incomes = np.random.lognormal(10.5, 0.4, size=n)
    clicks = np.random.poisson(3.0, size=n)
    records = []
    for age, income, n_clicks in zip(ages, incomes, clicks):
        churned = 1 if (n_clicks < 2 and age > 40) else 0
        records.append({"age": int(age), "income": float(income), "clicks": int(n_clicks), "churned": churned})
    return records


class ChurnDataset(Dataset):
    def __init__(self, records):
        self.records = records

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        rec = self.records[idx]
        features = np.array([rec["age"] / 100.0, rec["income"] / 1e5, np.log1p(rec["clicks"])], dtype=np.float32)
        return features, np.float32(rec["churned"])


class ChurnModel(nn.Module):
    def __init__(self, n_features=3, hidden=16):
        super().__init__()
        self.hidden = nn.Linear(n_features, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x))).squeeze(-1)


records = make_records()
loader = DataLoader(ChurnDataset(records), batch_size=8, shuffle=True)
model = ChurnModel()
loss_fn = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

history = []
for epoch in range(3):
    epoch_loss = 0.0
    for features, target in loader:
        logits = model(features)
        loss = loss_fn(logits, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item() * len(target)
    history.append(epoch_loss / len(records))
print("loss per epoch:", [round(v, 3) for v in history])
