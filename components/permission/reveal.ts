/**
 * Where a permission question can be seen: between the sticky header at the top and the
 * sticky composer at the bottom of the session page (either may be missing).
 */

const GAP = 12;

function stickies() {
  return {
    header: document.querySelector<HTMLElement>("body > header"),
    composer: document.querySelector<HTMLElement>('[data-testid="composer"]'),
  };
}

/** The card's answer buttons (what must be seen to answer), or the card itself. */
function answers(card: HTMLElement): HTMLElement {
  return card.querySelector<HTMLElement>("[data-answers]") ?? card;
}

/** Whether the card's answers are wholly visible, neither under the header nor under the composer. */
export function inView(card: HTMLElement): boolean {
  const rect = answers(card).getBoundingClientRect();
  const { header, composer } = stickies();
  const top = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
  const bottom = composer ? Math.min(window.innerHeight, composer.getBoundingClientRect().top) : window.innerHeight;
  return rect.top >= top && rect.bottom <= bottom;
}

/**
 * Scroll the card into view, its bottom clear of the sticky composer (its full height,
 * wherever it sits now) and its top clear of the header. A card taller than that space
 * shows its answers.
 */
export function revealElement(card: HTMLElement): void {
  const { header, composer } = stickies();
  const above = (header?.offsetHeight ?? 0) + GAP;
  const below = (composer?.offsetHeight ?? 0) + GAP;
  const target = card.offsetHeight > window.innerHeight - above - below ? answers(card) : card;
  target.style.scrollMarginTop = `${above}px`;
  target.style.scrollMarginBottom = `${below}px`;
  const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  target.scrollIntoView({ block: "nearest", behavior: smooth ? "smooth" : "auto" });
}
