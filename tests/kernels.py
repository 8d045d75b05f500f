"""Kernels the tests start themselves, over Unix sockets rather than TCP ports.

jupyter_client chooses a kernel's five TCP ports by binding port 0 and letting each go
before the kernel binds it. Under ``make test``'s three workers, a loopback server that
another test binds to port 0 in that gap can take one, and the kernel dies before it
answers ("Kernel died before replying to kernel_info", "Address already in use"): a test
failed for a reason of the machine's, not the code's. Sockets at paths of their own have
no such gap. A folder under the system's temporary directory keeps each path short (a Unix
socket's path has at most 107 bytes), removed with its manager.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import weakref
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager


def ipc_kernel_manager(**kwargs: Any) -> KernelManager:
    """A ``KernelManager`` whose kernel listens on Unix sockets in a folder of its own."""
    folder = Path(tempfile.mkdtemp(prefix="arb-kernel-"))
    km = KernelManager(transport="ipc", ip=str(folder / "k"), **kwargs)
    weakref.finalize(km, shutil.rmtree, folder, ignore_errors=True)  # the folder goes with it
    return km


def serve_nbval_over_ipc() -> None:
    """Start nbval's kernels over Unix sockets too (its ``start_new_kernel``, the one place
    it makes a kernel, with the same steps), and give the kernel's standard error to
    ``/dev/null`` itself: nbval opens a file for it that it never closes."""
    try:
        import nbval.kernel as nbval_kernel
    except ImportError:  # pragma: no cover - nbval is a test dependency
        return

    def start_new_kernel(
        startup_timeout: float = 60, kernel_name: str = "python", **kwargs: Any
    ) -> Any:
        opened = kwargs.pop("stderr", None)
        if opened is not None and hasattr(opened, "close"):
            opened.close()
        km = ipc_kernel_manager(
            kernel_name=kernel_name, kernel_spec_manager=nbval_kernel.NbvalKernelspecManager()
        )
        km.start_kernel(stderr=subprocess.DEVNULL, **kwargs)
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=startup_timeout)
        except RuntimeError:
            kc.stop_channels()
            km.shutdown_kernel()
            raise
        return km, kc

    nbval_kernel.start_new_kernel = start_new_kernel
