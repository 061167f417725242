"""Bug: an ensemble averages probabilities into torch.zeros_like(labels), which inherits the labels' int64; the in-place add of float probabilities raises.

family: int-float
expected: RuntimeError
message: result type Float can't be cast to the desired output type Long
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_FEATURES = 8
MEMBERS = [(16, 0.0), (32, 0.1), (64, 0.2)]


def make_split(n, shift=0.0):
    X = torch.randn(n, N_FEATURES) + shift
    y = (X[:, 0] + 0.5 * X[:, 1] > shift).long()
    return X, y


def make_member(hidden, dropout):
    return nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, 1))


def train_member(model, X, y, epochs=30, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        loss = F.binary_cross_entropy_with_logits(model(X).squeeze(1), y.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model, loss.item()


@torch.no_grad()
def ensemble_predict(models, X, y):
    probs = torch.zeros_like(y)  # cause: zeros_like keeps the labels' int64
    for model in models:
        model.eval()
        probs += torch.sigmoid(model(X).squeeze(1)) / len(models)  # bug: float probabilities added into int64
    preds = (probs > 0.5).long()
    return preds, (preds == y).float().mean().item()


def main():
    X_train, y_train = make_split(128)
    X_val, y_val = make_split(48, shift=0.1)
    trained = [train_member(make_member(h, p), X_train, y_train) for h, p in MEMBERS]
    models, final_losses = zip(*trained)
    for (hidden, _), loss in zip(MEMBERS, final_losses):
        print(f"member hidden={hidden}: train loss {loss:.3f}")
    _, accuracy = ensemble_predict(models, X_val, y_val)
    print(f"ensemble accuracy: {accuracy:.2f}")


if __name__ == "__main__":
    main()
