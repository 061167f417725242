"""Bug: the federated client adds Gaussian differential-privacy noise in place to every entry of its model diff; with a BatchNorm network the diff holds the int64 num_batches_tracked counter, and adding float noise to it in place is refused.

family: int-float
category: mutated-modules
expected: RuntimeError
message: result type Float can't be cast to the desired output type Long
source: https://github.com/heroding77/fedavg_encrypt/issues/2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

conf = {"no_models": 2, "global_epochs": 2, "local_epochs": 1, "lr": 0.01, "lambda": 0.5, "dp": True, "sigma": 0.001}


def get_model():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),  # cause: its state_dict carries an int64 num_batches_tracked
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, 10),
    )


class Client(object):
    def __init__(self, conf, model, dataset):
        self.conf = conf
        self.local_model = model
        self.train_loader = DataLoader(dataset, batch_size=8, shuffle=True)

    def local_train(self, global_model):
        self.local_model.load_state_dict(global_model.state_dict())
        optimizer = torch.optim.SGD(self.local_model.parameters(), lr=self.conf["lr"])
        self.local_model.train()
        for _ in range(self.conf["local_epochs"]):
            for data, target in self.train_loader:
                loss = F.cross_entropy(self.local_model(data), target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        diff = dict()
        for name, data in self.local_model.state_dict().items():
            diff[name] = data - global_model.state_dict()[name]
            if self.conf["dp"]:
                noise = torch.normal(0.0, self.conf["sigma"], size=diff[name].shape)
                diff[name].add_(noise)  # bug: float noise added in place to the Long counter diff
        return diff


class Server(object):
    def __init__(self, conf):
        self.conf = conf
        self.global_model = get_model()

    def model_aggregate(self, weight_accumulator):
        for name, data in self.global_model.state_dict().items():
            update_per_layer = weight_accumulator[name] * self.conf["lambda"]
            data.copy_(data + update_per_layer.to(data.dtype))


def main():
    torch.manual_seed(0)
    server = Server(conf)
    clients = [Client(conf, get_model(), TensorDataset(torch.randn(16, 3, 8, 8), torch.randint(0, 10, (16,))))
               for _ in range(conf["no_models"])]
    for e in range(conf["global_epochs"]):
        weight_accumulator = {name: torch.zeros_like(p) for name, p in server.global_model.state_dict().items()}
        for c in clients:
            diff = c.local_train(server.global_model)
            for name in weight_accumulator:
                weight_accumulator[name] = weight_accumulator[name] + diff[name]
        server.model_aggregate(weight_accumulator)
        print(f"global epoch {e} done")


if __name__ == "__main__":
    main()
