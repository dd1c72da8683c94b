from .html_walk import Block, Box, Ctx

class FastWalker:
    root: Ctx
    ctxs: list[Ctx]
    ctx: Ctx
    blocks: list[Block]
    box: Box
    boxes: list[Box]
    page_chars: int
    def walk(self, body_id: int) -> None: ...

def fast_walk(body_id: int) -> FastWalker: ...
