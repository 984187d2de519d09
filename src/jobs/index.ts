export {
  createPeriodicJob,
  type Job,
  type JobClock,
  type PeriodicJob,
  type PeriodicJobOptions,
  systemClock,
  type TurnOutcome,
} from './periodic.js';
