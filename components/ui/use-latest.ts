"use client";

import { type RefObject, useEffect, useRef } from "react";

/** A ref holding the latest `value` (updated after each render that changes it), for effects that read it without running again when it changes. */
export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useEffect(() => {
    ref.current = value;
  }, [value]);
  return ref;
}
