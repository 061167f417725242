"""Bug: the validation pass flattens each batch of digits with images.view(batch_size, 784) using the loader's configured batch size; 100 test images in batches of 64 leave a last batch of 36 that cannot be viewed as 64 rows.

family: shape
category: data-paths
expected: RuntimeError
message: shape '[64, 784]' is invalid for input of size
source: https://github.com/udacity/deep-learning-v2-pytorch/pull/60
"""
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

batch_size = 64


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, 10)
        self.dropout = nn.Dropout(p=0.2)

    def forward(self, x):
        x = self.dropout(F.relu(self.fc1(x)))
        x = self.dropout(F.relu(self.fc2(x)))
        return F.log_softmax(self.fc3(x), dim=1)


def validation(model, testloader, criterion):
    test_loss, accuracy = 0.0, 0.0
    for images, labels in testloader:
        images = images.view(batch_size, 784)  # bug: 36 images in the last batch  # cause: the configured batch size, not images.shape[0]
        log_ps = model(images)
        test_loss += criterion(log_ps, labels).item()
        top_class = log_ps.exp().topk(1, dim=1)[1]
        accuracy += (top_class == labels.view(*top_class.shape)).float().mean().item()
    return test_loss / len(testloader), accuracy / len(testloader)


torch.manual_seed(0)
trainloader = DataLoader(TensorDataset(torch.rand(128, 1, 28, 28), torch.randint(0, 10, (128,))), batch_size=batch_size, shuffle=True)
testloader = DataLoader(TensorDataset(torch.rand(100, 1, 28, 28), torch.randint(0, 10, (100,))), batch_size=batch_size, shuffle=True)
model = Classifier()
criterion = nn.NLLLoss()
optimizer = optim.Adam(model.parameters(), lr=0.003)

for e in range(2):
    model.train()
    running_loss = 0.0
    for images, labels in trainloader:
        images = images.view(images.shape[0], -1)
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    model.eval()
    with torch.no_grad():
        test_loss, accuracy = validation(model, testloader, criterion)
    print(f"Epoch {e + 1}: train loss {running_loss / len(trainloader):.3f} test loss {test_loss:.3f} test acc {accuracy:.3f}")
