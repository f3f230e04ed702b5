"""A conversation's messages as a tree: editing or regenerating forks it, never deletes.

Every message names its parent (the message it answers or follows). Where several messages share
a parent they are *branches*; the one shown and sent to the model is the one chosen last
(``chosen`` is a counter bumped when a message is written or switched to). This module is the
pure part — no SQLite, no Qt — so the store and the session walk the tree the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple


class TreeNode(NamedTuple):
    """What the tree needs of one stored message (a tuple: a long conversation builds many)."""

    node: str
    parent: str | None
    chosen: int
    #: The row id: creation order, which orders branches ("1/3" is the oldest).
    order: int


@dataclass(frozen=True)
class BranchPosition:
    """Where a message stands among its siblings: ``index`` of ``count`` (1-based)."""

    index: int
    count: int
    siblings: tuple[str, ...]

    def step(self, delta: int) -> str | None:
        """The sibling ``delta`` places away, or ``None`` past either end."""
        target = self.index - 1 + delta
        return self.siblings[target] if 0 <= target < self.count else None


class MessageTree:
    """Parent and children of every message of one conversation."""

    def __init__(self, nodes: Iterable[TreeNode] = ()) -> None:
        self._nodes: dict[str, TreeNode] = {}
        self._children: dict[str | None, list[str]] = {}
        for node in sorted(nodes, key=lambda n: n.order):
            self.add(node)

    def add(self, node: TreeNode) -> None:
        self._nodes[node.node] = node
        self._children.setdefault(node.parent, []).append(node.node)

    def __len__(self) -> int:
        return len(self._nodes)

    @property
    def latest(self) -> int:
        """The highest ``chosen`` or ``order`` in the tree (a node added above it is the newest)."""
        return max((max(n.chosen, n.order) for n in self._nodes.values()), default=0)

    def __contains__(self, node: object) -> bool:
        return node in self._nodes

    def parent(self, node: str) -> str | None:
        return self._nodes[node].parent

    def children(self, node: str | None) -> list[str]:
        return list(self._children.get(node, ()))

    def position(self, node: str) -> BranchPosition:
        siblings = tuple(self._children.get(self._nodes[node].parent, ()))
        return BranchPosition(siblings.index(node) + 1, len(siblings), siblings)

    def has_versions(self, node: str) -> bool:
        """Whether other messages share ``node``'s parent (cheap: asked for every row shown)."""
        known = self._nodes.get(node)
        return known is not None and len(self._children.get(known.parent, ())) > 1

    def active_path(self, start: str | None = None) -> list[str]:
        """From ``start``'s children (the roots when ``None``) down, the last chosen child each time."""
        path: list[str] = []
        current = start
        while children := self._children.get(current):
            current = max(children, key=lambda n: (self._nodes[n].chosen, self._nodes[n].order))
            path.append(current)
        return path

    def path_through(self, node: str) -> list[str]:
        """The root-to-leaf path that contains ``node``: its ancestors, it, then its active descendants."""
        ancestors: list[str] = []
        current: str | None = node
        while current is not None:
            ancestors.append(current)
            current = self._nodes[current].parent
        return [*reversed(ancestors), *self.active_path(node)]
