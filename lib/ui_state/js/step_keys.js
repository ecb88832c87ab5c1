export default function ({ setStateValue }) {
    const epoch = Math.random().toString(36).slice(2);
    let net = 0;
    const steps = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 };
    const onKey = (event) => {
        const by = steps[event.key];
        if (!by || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
        const target = event.target;
        const fields = 'input, textarea, select, [contenteditable], [role="slider"], [role="listbox"], [role="combobox"]';
        if (target instanceof Element && target.closest(fields)) return;
        event.preventDefault();
        net += by;
        setStateValue("presses", { epoch, net });
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
}
