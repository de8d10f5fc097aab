import { Uuid } from '../common/schemas.ts';

export const ProjectIdParam = Uuid.describe('Project id.');

export {
  Platform,
  ScanStatus,
  ResultStatus,
  QueryKind,
  ProjectRecord,
  ScanRecord,
  Denominators,
  Overall,
  Coverage,
  PlatformMeasurement,
  QueryResult,
  SnapshotMethod,
  TrendsRecord,
} from '../../engine/tracker/contract.ts';
