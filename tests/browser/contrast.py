"""How the browser tests measure the contrast of text, in the page: colours parsed from
computed styles (``rgb()``, ``rgba()`` and the ``color(srgb ...)`` that ``color-mix()``
computes to), each element's background and opacity composited up the tree, then WCAG's
ratio of the glyph's pixel to the one beside it. One definition for every look test."""

CONTRAST_JS = """\
    const parse = (text) => {
        let m = /^rgba?\\(([^)]*)\\)$/.exec(text);
        if (m) {
            const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
            return [p[0] / 255, p[1] / 255, p[2] / 255, p.length > 3 ? p[3] : 1];
        }
        m = /^color\\(srgb ([^)]*)\\)$/.exec(text);
        if (m) {
            const p = m[1].split(/[ \\/]+/).filter(Boolean).map(Number);
            return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
        }
        throw new Error('unparsed colour ' + text);
    };
    // Alpha compositing that keeps the result's alpha: `top` drawn over `below`.
    const over = (top, below) => {
        const a = top[3] + below[3] * (1 - top[3]);
        if (a === 0) return [0, 0, 0, 0];
        return [0, 1, 2].map((i) => (top[i] * top[3] + below[i] * below[3] * (1 - top[3])) / a).concat([a]);
    };
    const luminance = (c) => {
        const lin = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
    };
    // The pixel of a glyph and the pixel beside it, as the page composites them: each
    // element's background under what it holds, then its opacity over both, up the tree.
    const contrast = (el) => {
        let text = parse(getComputedStyle(el).color);
        let beside = [0, 0, 0, 0];
        for (let e = el; e; e = e.parentElement) {
            const style = getComputedStyle(e);
            const layer = parse(style.backgroundColor);
            text = over(text, layer);
            beside = over(beside, layer);
            const o = parseFloat(style.opacity);
            text[3] *= o;
            beside[3] *= o;
        }
        const page = [1, 1, 1, 1];
        const [a, b] = [luminance(over(text, page)), luminance(over(beside, page))].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
    };
"""
"""JavaScript defining ``parse``, ``over``, ``luminance`` and ``contrast(element)``: paste it
inside a function's body before the code that calls them."""
