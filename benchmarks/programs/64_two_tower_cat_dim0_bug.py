"""Bug: a two-tower recommender concatenates the user and item vectors with torch.cat's default dim=0, stacking them along the batch; the scoring MLP expects them side by side.

family: shape
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Interactions(Dataset):
    def __init__(self, n_users=20, n_items=30, n=96):
        self.users = torch.randint(0, n_users, (n,))
        self.items = torch.randint(0, n_items, (n,))
        self.clicked = ((self.users + self.items) % 3 == 0).float()

    def __len__(self):
        return len(self.clicked)

    def __getitem__(self, i):
        return {"user": self.users[i], "item": self.items[i], "clicked": self.clicked[i]}


class Tower(nn.Module):
    def __init__(self, n_ids, dim):
        super().__init__()
        self.embed = nn.Embedding(n_ids, dim)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())

    def forward(self, ids):
        return self.proj(self.embed(ids))


class TwoTower(nn.Module):
    def __init__(self, n_users=20, n_items=30, dim=16):
        super().__init__()
        self.user_tower = Tower(n_users, dim)
        self.item_tower = Tower(n_items, dim)
        self.scorer = nn.Sequential(nn.Linear(2 * dim, dim), nn.ReLU(), nn.Linear(dim, 1))

    def forward(self, users, items):
        u, v = self.user_tower(users), self.item_tower(items)
        pair = torch.cat([u, v])  # cause: default dim=0 stacks along the batch
        return self.scorer(pair).squeeze(-1)  # bug: (2B, dim) into a Linear expecting 2 * dim features


def run_epoch(model, loader, opt=None):
    total, n = 0.0, 0
    for batch in loader:
        logits = model(batch["user"], batch["item"])
        loss = nn.functional.binary_cross_entropy_with_logits(logits, batch["clicked"])
        if opt is not None:
            opt.zero_grad()
            loss.backward()
            opt.step()
        total, n = total + loss.item() * len(logits), n + len(logits)
    return total / n


model = TwoTower()
loader = DataLoader(Interactions(), batch_size=16, shuffle=True)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(2):
    train_loss = run_epoch(model, loader, opt)
    with torch.no_grad():
        eval_loss = run_epoch(model, loader)
    print(f"epoch {epoch}: train {train_loss:.3f} eval {eval_loss:.3f}")
