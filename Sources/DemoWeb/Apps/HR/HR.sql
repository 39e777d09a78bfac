-- A Core Data SQLite store as Core Data writes it for the HR model (HR.xcdatamodeld):
-- Company, Employee with its sub-entity Manager (sharing ZEMPLOYEE), Project, and the
-- many-to-many Employee.projects <-> Project.members in the join table Z_2PROJECTS.
-- Dates are seconds since 2001-01-01 UTC. The sample follows WACoreDataSpotlight's demo.
PRAGMA journal_mode = WAL;
CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
INSERT INTO Z_PRIMARYKEY VALUES (1, 'Company', 0, 3), (2, 'Employee', 0, 8), (3, 'Manager', 2, 0), (4, 'Project', 0, 3);
INSERT INTO Z_METADATA VALUES (1, '6B1F9E53-2C55-4C0B-9C53-3A1E3A7B2F10', NULL);
CREATE TABLE ZCOMPANY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZACTIVITY VARCHAR, ZADDRESS VARCHAR, ZNAME VARCHAR);
CREATE TABLE ZEMPLOYEE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSALARY INTEGER, ZCOMPANY INTEGER, ZHIRED TIMESTAMP,
    ZAVATARIMAGENAME VARCHAR, ZEMPLOYEEID VARCHAR, ZFIRSTNAME VARCHAR, ZJOBTITLE VARCHAR, ZLASTNAME VARCHAR, ZBUDGET FLOAT);
CREATE INDEX ZEMPLOYEE_ZCOMPANY_INDEX ON ZEMPLOYEE (ZCOMPANY);
CREATE TABLE ZPROJECT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR);
CREATE TABLE Z_2PROJECTS (Z_2MEMBERS INTEGER, Z_4PROJECTS INTEGER, PRIMARY KEY (Z_2MEMBERS, Z_4PROJECTS));
CREATE INDEX Z_2PROJECTS_Z_4PROJECTS_INDEX ON Z_2PROJECTS (Z_4PROJECTS, Z_2MEMBERS);
INSERT INTO ZCOMPANY VALUES
    (1, 1, 1, 'mobile applications', 'Lille, France', 'Wasappli'),
    (2, 1, 1, 'bakeries', 'Lyon, France', 'Boulangerie Lumière'),
    (3, 1, 1, 'live streaming', '上海', '星火科技');
INSERT INTO ZEMPLOYEE VALUES
    (1, 3, 1, 98000, 1, 473385600, 'marian', 'E001', 'Marian', 'founder and CTO', 'Paul', 250000),
    (2, 2, 1, 52000, 1, 631152000, 'ines', 'E002', 'Inès', 'iOS developer', 'Moreau', NULL),
    (3, 2, 1, 48000, 1, 662688000, 'tom', 'E003', 'Tom', 'Android developer', 'Kowalski', NULL),
    (4, 3, 1, 61000, 2, 505008000, 'claire', 'E004', 'Claire', 'head baker', 'Dubois', 40000),
    (5, 2, 1, 31000, 2, 694224000, NULL, 'E005', 'Hugo', 'apprentice baker', 'Martin', NULL),
    (6, 2, 1, 45000, 3, 599616000, 'li', 'E006', '丽', 'streamer', '王', NULL),
    (7, 2, 1, 47000, 3, 599616000, NULL, 'E007', 'Chen', 'video engineer', 'Wei', NULL),
    (8, 2, 1, NULL, NULL, NULL, NULL, 'E008', NULL, 'contractor', NULL, NULL);
INSERT INTO ZPROJECT VALUES (1, 4, 1, 'Spotlight indexing'), (2, 4, 1, 'Sourdough app'), (3, 4, 1, 'Live search');
INSERT INTO Z_2PROJECTS VALUES (1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (2, 2), (6, 3), (7, 3), (1, 3);
