// Imported first by main.tsx, and importing nothing: its mark is the moment the entry bundle
// has been parsed and starts to run (the start-up timeline, launchMark.ts). The name is
// launchMark.ts's own prefix ("af:") and step.
performance.mark('af:bundle parsed, evaluation started');
