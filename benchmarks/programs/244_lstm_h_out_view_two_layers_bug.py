"""Bug: the forecaster reads the LSTM's final hidden state h_out, shaped (num_layers, batch, hidden), and flattens it with view(-1, hidden_size); with num_layers=2 that stacks both layers into 2*batch rows, and the MSE loss cannot match 80 predictions with 40 targets.

family: shape
category: model-outputs
expected: RuntimeError
message: must match the size of tensor b (40)
source: https://github.com/cpuheater/pytorch_examples/issues/2
"""
import numpy as np
import torch
import torch.nn as nn


def sliding_windows(data, seq_length):
    x, y = [], []
    for i in range(len(data) - seq_length - 1):
        x.append(data[i:(i + seq_length)])
        y.append(data[i + seq_length])
    return np.array(x), np.array(y)


class LSTM(nn.Module):
    def __init__(self, num_classes, input_size, hidden_size, num_layers):
        super().__init__()
        self.num_layers, self.hidden_size = num_layers, hidden_size
        self.lstm = nn.LSTM(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        h_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        c_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        ula, (h_out, _) = self.lstm(x, (h_0, c_0))
        h_out = h_out.view(-1, self.hidden_size)  # cause: (num_layers * batch, hidden), one row per layer
        return self.fc(h_out)


def main():
    torch.manual_seed(0)
    t = np.arange(45, dtype=np.float32)
    series = ((np.sin(t / 4) + 1) / 2).reshape(-1, 1)
    x, y = sliding_windows(series, seq_length=4)
    trainX, trainY = torch.from_numpy(x), torch.from_numpy(y)

    num_epochs, learning_rate = 3, 0.01
    input_size, hidden_size, num_layers, num_classes = 1, 5, 2, 1
    lstm = LSTM(num_classes, input_size, hidden_size, num_layers)
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(lstm.parameters(), lr=learning_rate)
    for epoch in range(num_epochs):
        outputs = lstm(trainX)
        optimizer.zero_grad()
        loss = criterion(outputs, trainY)  # bug: 80 predictions, 40 targets
        loss.backward()
        optimizer.step()
        print(f"Epoch: {epoch}, loss: {loss.item():1.5f}")


if __name__ == "__main__":
    main()
