/**
 * A ref callback that focuses its element once, when the element is attached: what React's
 * `autoFocus` does on mount. The page runs on preact/compat, which leaves `autoFocus` to the
 * browser, and a browser honours the autofocus attribute only while the document loads or a
 * dialog opens. Being one function for the page's whole life, it is not called again when the
 * element re-renders.
 */
export function focusOnMount(el: HTMLElement | null): void {
  el?.focus();
}
