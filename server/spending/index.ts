export * as Spending from "./spending";
