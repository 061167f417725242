"""Bug: a standardize() helper upcasts to float64 for a stable variance and never casts back; the float64 batch hits a float32 layer.

family: precision
expected: RuntimeError
message: mat1 and mat2 must have the same dtype, but got Double and Float
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


def standardize(x, eps=1e-6, dim=0):
    x = x.double()  # cause: float64 for the statistics, never cast back
    mean = x.mean(dim=dim, keepdim=True)
    std = x.std(dim=dim, keepdim=True)
    return (x - mean) / (std + eps)


def make_sensor_data(n=64, n_sensors=5):
    t = torch.linspace(0, 6.28, n).unsqueeze(1)
    readings = torch.sin(t * torch.arange(1, n_sensors + 1)) * 100 + 20 * torch.randn(n, n_sensors)
    faulty = (readings.abs().max(dim=1).values > 140).float()
    return readings, faulty


class FaultDetector(nn.Module):
    def __init__(self, n_sensors=5, hidden=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_sensors, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)  # bug: float64 input meets float32 weights


def train_detector(model, x, y, epochs=3, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    pos_weight = (1 - y).sum() / y.sum().clamp(min=1)
    for epoch in range(epochs):
        logits = model(x)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y, pos_weight=pos_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


readings, faulty = make_sensor_data()
features = standardize(readings)
train_detector(FaultDetector(), features, faulty)
