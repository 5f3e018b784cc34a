"""What HeteroSim calls an op, read from a PyTorch call: its kind, named dimensions, FLOPs and bytes.

The kernel grid and the whole-model runs describe every call through `describe`, so a point of the grid
and a node of a model that run the same library code get the same kind and the same features. FLOPs and
bytes follow the workload builders' conventions (validation/kernel_shapes.hpp): a multiply-add is two
FLOPs, bytes are fp32 read + written, parameters included.
"""
import math
import operator

import torch
import torch.nn as nn
import torch.nn.functional as F

FP32 = 4.0
# fx node targets that only relabel a tensor (no data moves in eager mode).
VIEW_METHODS = {"view", "reshape", "permute", "transpose", "flatten", "size", "unsqueeze", "squeeze",
                "expand", "dim"}


def numel(shape):
    return float(math.prod(shape)) if shape else 1.0


def op(kind, dims, flops, bytes_moved):
    return {"kind": kind, "shape": {k: float(v) for k, v in dims.items()}, "flops": float(flops),
            "bytes": float(bytes_moved)}


def conv2d(module, x, y):
    b, cin, h, w = x.shape
    cout, _, kh, kw = module.weight.shape
    oh, ow = y.shape[2], y.shape[3]
    g = module.groups
    flops = 2.0 * b * cout * oh * ow * (cin / g) * kh * kw
    moved = FP32 * (numel(x.shape) + numel(module.weight.shape) + numel(y.shape))
    return op("conv2d", {"batch": b, "cin": cin, "cout": cout, "h": h, "w": w, "kh": kh, "kw": kw,
                         "stride": module.stride[0], "groups": g, "oh": oh, "ow": ow}, flops, moved)


def gemm(batch, m, n, k, weight_elements=0.0):
    moved = FP32 * (batch * (m * k + m * n) + (weight_elements if weight_elements else batch * k * n))
    return op("gemm", {"batch": batch, "m": m, "n": n, "k": k}, 2.0 * batch * m * n * k, moved)


def linear(module, x, y):
    k = x.shape[-1]
    m = numel(x.shape[:-1])
    return gemm(1, m, module.out_features, k, numel(module.weight.shape))


def matmul(a, b):
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    return gemm(numel(a.shape[:-2]), m, n, k)


def rows(kind, x, flops_per_value):
    r, c = numel(x.shape[:-1]), x.shape[-1]
    return op(kind, {"rows": r, "cols": c}, flops_per_value * r * c, 2 * FP32 * r * c)


def elementwise(y, arity, transcendental):
    n = numel(y.shape)
    return op("elementwise", {"n": n, "arity": arity, "transcendental": transcendental},
              n * (8 if transcendental else 1), FP32 * n * (arity + 1))


def batchnorm(x):
    n = numel(x.shape)
    return op("batchnorm", {"n": n, "c": x.shape[1]}, 2 * n, 2 * FP32 * n)


def pool(x, y, is_max):
    nin, nout = numel(x.shape), numel(y.shape)
    return op("pool", {"n_in": nin, "n_out": nout, "window": nin / nout, "max": 1 if is_max else 0},
              nin, FP32 * (nin + nout))


def embedding(module, idx):
    r = numel(idx.shape)
    return op("embedding", {"rows": r, "cols": module.embedding_dim}, 0, 2 * FP32 * r * module.embedding_dim)


def view(y):
    return op("view", {"n": numel(y.shape) if isinstance(y, torch.Tensor) else 1}, 0, 0)


def describe_module(module, args, y):
    x = args[0] if args else None
    if isinstance(module, nn.Conv2d):
        return conv2d(module, x, y)
    if isinstance(module, nn.Linear):
        return linear(module, x, y)
    if isinstance(module, (nn.BatchNorm2d, nn.BatchNorm1d)):
        return batchnorm(x)
    if isinstance(module, nn.LayerNorm):
        return rows("layernorm", x, 8)
    if isinstance(module, nn.Softmax):
        return rows("softmax", x, 5)
    if isinstance(module, nn.ReLU):
        return elementwise(y, 1, 0)
    if isinstance(module, (nn.GELU, nn.Tanh)):
        return elementwise(y, 1, 1)
    if isinstance(module, nn.MaxPool2d):
        return pool(x, y, True)
    if isinstance(module, (nn.AdaptiveAvgPool2d, nn.AvgPool2d)):
        return pool(x, y, False)
    if isinstance(module, nn.Embedding):
        return embedding(module, x)
    if isinstance(module, nn.Dropout):
        return view(y)  # evaluation mode: the identity
    raise ValueError(f"no HeteroSim op kind for module {type(module).__name__}")


def describe_function(target, args, y):
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if target in (operator.add, torch.add, operator.iadd, operator.mul, torch.mul, operator.truediv):
        return elementwise(y, max(1, len(tensors)), 0)
    if target in (torch.matmul, operator.matmul, torch.bmm):
        return matmul(tensors[0], tensors[1])
    if target in (torch.softmax, F.softmax):
        return rows("softmax", tensors[0], 5)
    if target in (torch.relu, F.relu):
        return elementwise(y, 1, 0)
    if target in (F.gelu, torch.tanh, torch.erf):
        return elementwise(y, 1, 1)
    if target in (torch.flatten, getattr) or getattr(target, "__name__", "") in VIEW_METHODS:
        return view(y)
    raise ValueError(f"no HeteroSim op kind for function {getattr(target, '__name__', target)}")


def describe_method(name, args, y):
    if name in VIEW_METHODS:
        return view(y)
    if name == "contiguous":
        return op("copy", {"n": numel(y.shape)}, 0, 2 * FP32 * numel(y.shape))
    if name == "softmax":
        return rows("softmax", args[0], 5)
    raise ValueError(f"no HeteroSim op kind for method .{name}()")


def label_of(record):
    dims = " ".join(f"{k}={int(v) if float(v).is_integer() else v}" for k, v in sorted(record["shape"].items()))
    return f"{record['kind']} {dims}"
