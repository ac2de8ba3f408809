export { create, get, list, children, update, touch, remove, CreateInput, ListInput, UpdateInput, type Listed, type Page } from "./session";
export { fork, ForkInput } from "./fork";
export { share, unshare } from "./share";
export {
  messages,
  allMessages,
  message,
  part,
  updateMessage,
  updatePart,
  removeMessage,
  removePart,
  MessagesInput,
  type MessagePage,
} from "./transcript";
export { Info, defaultTitle, isDefaultTitle, forkTitle, MAX_TITLE } from "./info";
export { prompt, compact, abort, rerun, recoverInterrupted, assertAccepting, RETRY_AFTER_S, PromptInput, CompactInput, RerunInput } from "./prompt";
export { start as startRunner } from "./loop";
export { revert, unrevert, RevertInput, UnrevertInput } from "./revert";
export { list as versions, switchTo as switchVersion, VersionsInput, SwitchInput as SwitchVersionInput, type VersionPoint, type VersionEntry } from "./versions";
export { cancelQueued, CancelQueuedInput } from "./queue";
export { diffOfTurn, TurnDiffInput, type TurnDiff } from "./summary";
export { files, FilesInput } from "./project-files";
export { retryNow, stopRetrying, RetryControlInput } from "./retry-control";
