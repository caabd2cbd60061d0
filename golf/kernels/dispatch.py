"""The explicit tag by which compiled code calls a backend's kernel.

The search loop (:func:`golf.engine.annealer.run_chunk`) is compiled once and cached on disk; it
must call whichever backend's kernel the run uses without taking the kernel as an argument (a
function passed as a value makes the caller uncacheable). Each compiled backend therefore
carries a :class:`KernelTag` naming it. To Numba every tag is a type of its own, so
``call_kernel(tag, kargs)`` resolves, at compile time, to the kernel that the backend of that
name registered with its tag and is inlined there: one specialisation of the loop per backend,
no dispatch at run time, and nothing to keep in step when a backend is added.
"""

from __future__ import annotations

from numba import types
from numba.core.errors import TypingError
from numba.extending import (NativeValue, models, overload, register_model, typeof_impl,
                             unbox)

__all__ = ["KernelTag", "call_kernel"]


# backend name -> its compiled kernel, registered by the backend's tag
_KERNELS: dict = {}


class KernelTag:
    """The tag of the backend ``backend`` (a registry name), whose compiled ``kernel`` the
    tag registers for :func:`call_kernel`."""

    __slots__ = ("backend",)

    def __init__(self, backend: str, kernel):
        self.backend = str(backend)
        _KERNELS[self.backend] = kernel

    def __repr__(self) -> str:
        return f"KernelTag({self.backend!r})"


class KernelTagType(types.Opaque):
    """Numba's type of a tag: one type per backend name, no data at run time."""

    def __init__(self, backend: str):
        self.backend = backend
        super().__init__(name=f"KernelTag({backend})")


@typeof_impl.register(KernelTag)
def _typeof_tag(val, c):
    return KernelTagType(val.backend)


register_model(KernelTagType)(models.OpaqueModel)


@unbox(KernelTagType)
def _unbox_tag(typ, obj, c):
    return NativeValue(c.context.get_dummy_value())


def call_kernel(tag, kargs):
    """Call the kernel of the backend ``tag`` names with the argument tuple ``kargs``
    (compiled code only)."""
    raise NotImplementedError("call_kernel is for compiled code; use Evaluator.evaluate")


@overload(call_kernel, inline="always")
def _call_kernel_impl(tag, kargs):
    if not isinstance(tag, KernelTagType):
        raise TypingError(f"call_kernel needs a KernelTag, got {tag}")
    kernel = _KERNELS.get(tag.backend)
    if kernel is None:
        raise TypingError(f"backend {tag.backend} has no compiled kernel")

    def impl(tag, kargs):
        kernel(*kargs)

    return impl
