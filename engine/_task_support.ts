// The tasks code, loaded at a stream's first task (dispatch.ts), as one
// import: one entry of a bundle rather than two (runner/_start.ts says why).

export { TaskTable } from "./_tasks.ts";
export { TaskAsker } from "./_task_asker.ts";
