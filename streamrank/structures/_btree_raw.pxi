# The bit-for-bit copies of `_BTree` (`_btree.pxi`; included in `_cbtree.pyx` after it):
# its nodes and header, then the bytes of `fe` and of `pc` where they exist. The placement
# moments (`mo`, `_moments.pxi`) are left out: a copy makes them again when asked for.


def _tree_raw(_BTree self):
    """`_BTree.raw`: ``(layout, nodes, header)``; the header ends with the bytes of `fe`
    and of `pc` (``None`` where absent)."""
    nodes = (<char*>self.n)[:self.size * sizeof(BNode)]
    fe = None if self.fe == NULL else (<char*>self.fe)[:self.size * sizeof(BComp)]
    pc = None if self.pc == NULL else (<char*>self.pc)[:self.size * sizeof(BPos)]
    header = (self.size, self.free_head, self.root, self.distinct, self.pos_scores,
              self.ncopies[0], self.ncopies[1], self.npos[0], self.npos[1],
              self.itot[0], self.itot[1], self.floats, fe, pc)
    return (FAN, sizeof(BNode), LAYOUT), nodes, header


def _tree_set_raw(_BTree self, layout, bytes nodes, header):
    """`_BTree.set_raw`: False (nothing changed) if ``raw`` was written with another node
    layout (an earlier one: `fe` and `pc` inside the nodes)."""
    if tuple(layout) != (FAN, sizeof(BNode), LAYOUT) or len(header) != 14:
        return False
    size, floats, fe, pc = header[0], header[11], header[12], header[13]
    if not 1 <= size <= (1 << 30) // FAN or len(nodes) != size * sizeof(BNode):
        return False
    if (fe is not None) != bool(floats) or \
            fe is not None and len(fe) != size * sizeof(BComp):
        return False
    if pc is None and tuple(header[5:7]) != tuple(header[7:9]) or \
            pc is not None and len(pc) != size * sizeof(BPos):
        return False        # without pc every copy has weight > 0
    _mo_off(self)
    self.clear()
    self.set_floats(floats)
    self._grow(max(size, 4))
    if pc is not None:
        self._make_pc()
        memcpy(self.pc, <char*>pc, len(pc))
    if fe is not None:
        memcpy(self.fe, <char*>fe, len(fe))
    memcpy(self.n, <char*>nodes, len(nodes))
    (self.size, self.free_head, self.root, self.distinct, self.pos_scores,
     self.ncopies[0], self.ncopies[1], self.npos[0], self.npos[1],
     self.itot[0], self.itot[1]) = header[:11]
    return True
